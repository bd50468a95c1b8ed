#include "cli/search_config.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <sstream>

#include "core/error.hpp"

namespace ksearch::cli {
namespace {

// Fills each option the command line left out from the file's key of the same name (the long flag
// without its dashes). A key that is no configurable option of `command` is an error naming it.
void apply_config_file(CLI::App& command, const std::string& file) {
  CLI::ConfigTOML toml;
  std::vector<CLI::ConfigItem> items;
  try {
    items = toml.from_file(file);
  } catch (const CLI::Error& e) {
    throw Error(fmt::format("cannot read the configuration file {}: {}", file, e.what()));
  }
  for (const auto& item : items) {
    // CLI11 marks a section's start and end with items "++" and "--" under its name. A key in a section is refused
    // below, naming it; the end mark refuses an empty section, which holds no key to name.
    if (item.name == "++") continue;
    if (!item.parents.empty())
      throw Error(item.name == "--"
                      ? fmt::format("{}: section [{}]: a run configuration has no [sections]; put every key at the top (docs/CLI.md)",
                                    file, fmt::join(item.parents, "."))
                      : fmt::format("{}: unknown key '{}': a run configuration has no [sections]; put every key at the top (docs/CLI.md)",
                                    file, item.fullname()));
    if (item.name == "--") continue;
    CLI::Option* option = command.get_option_no_throw("--" + item.name);
    if (!option || !option->get_configurable())
      throw Error(fmt::format("{}: unknown key '{}' (keys are the `ksearch {}` flags without their leading --; see `ksearch {} --help`)",
                              file, item.name, command.get_name(), command.get_name()));
    if (option->count() > 0) continue;  // given on the command line: that wins
    if (option->get_expected_min() == 0)
      option->add_result(option->get_flag_value(item.name, toml.to_flag(item)));
    else
      option->add_result(item.inputs);
  }
}

// CLI11's file of `command`'s flags with the defaults; a flag neither given nor with a default comes
// out as `key=""`, which would set it to an empty value when read back: it is left as a comment.
std::string config_text(const CLI::App& command) {
  std::istringstream lines(command.config_to_str(/*default_also=*/true, /*write_description=*/true));
  std::string text;
  for (std::string line; std::getline(lines, line);) {
    const auto eq = line.find("=\"\"");
    const CLI::Option* option = eq != std::string::npos && eq + 3 == line.size() ? command.get_option_no_throw("--" + line.substr(0, eq)) : nullptr;
    text += option && option->count() == 0 ? "# " + line.substr(0, eq) + " = (not set)\n" : line + "\n";
  }
  return text;
}

}  // namespace

void add_config_file_options(CLI::App& command) {
  command.add_option_function<std::string>(
             "--config", [&command](const std::string& file) { apply_config_file(command, file); },
             "TOML file of flags (KEY = VALUE, KEY a flag without its --); flags on the command line win")
      ->check(CLI::ExistingFile)
      ->configurable(false);
  command
      .add_flag_callback(
          "--dump-config",
          [&command] {
            // Convert (and so check) every value first, as the parse would after this flag.
            for (CLI::Option* option : command.get_options())
              if (option->count() > 0 && !option->get_callback_run()) option->run_callback();
            fmt::print("# ksearch {} --config FILE (docs/CLI.md); flags on the command line override these\n{}", command.get_name(),
                       config_text(command));
            throw CLI::Success();
          },
          "Print the flags given (and the defaults) as a --config file, and exit")
      ->configurable(false);
}

}  // namespace ksearch::cli
