#include "core/pattern.hpp"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <fmt/format.h>
#include <pcre2.h>

#include <chrono>

namespace ksearch {
namespace {

// The time one search may take, the stack of the compiled matcher and (for the interpreter, where JIT is missing)
// its backtracking steps. PCRE2's own limits count per start position, so a text whose every position starts a long
// failing match (30000 times "static ") ran 17 s under them: the time limit is checked from a callout the pattern
// makes at each item (PCRE2_AUTO_CALLOUT), every 4096th. An honest 256 KiB kernel source takes milliseconds.
constexpr std::chrono::milliseconds kSearchTimeLimit{500};
constexpr uint32_t kMatchLimit = 20'000'000;
constexpr size_t kJitStackBytes = 8 * 1024 * 1024;

struct SearchBudget {
  std::chrono::steady_clock::time_point deadline;
  uint32_t callouts = 0;
};

int check_budget(pcre2_callout_block*, void* data) {
  auto* budget = static_cast<SearchBudget*>(data);
  if ((++budget->callouts & 4095) == 0 && std::chrono::steady_clock::now() > budget->deadline) return PCRE2_ERROR_CALLOUT;
  return 0;
}

std::string pcre2_message(int code) {
  PCRE2_UCHAR buffer[256];
  return pcre2_get_error_message(code, buffer, sizeof buffer) < 0 ? fmt::format("PCRE2 error {}", code)
                                                                  : std::string(reinterpret_cast<const char*>(buffer));
}

// One per thread: a JIT stack serves one match at a time.
struct ThreadMatchContext {
  pcre2_match_context* context = pcre2_match_context_create(nullptr);
  pcre2_jit_stack* stack = pcre2_jit_stack_create(32 * 1024, kJitStackBytes, nullptr);
  ThreadMatchContext() {
    if (!context || !stack) throw Error("cannot allocate a regular-expression match context");
    pcre2_set_match_limit(context, kMatchLimit);
    pcre2_jit_stack_assign(context, nullptr, stack);
  }
  ~ThreadMatchContext() {
    pcre2_jit_stack_free(stack);
    pcre2_match_context_free(context);
  }
};

pcre2_match_context* thread_match_context(SearchBudget& budget) {
  thread_local ThreadMatchContext state;
  pcre2_set_callout(state.context, check_budget, &budget);
  return state.context;
}

}  // namespace

struct Pattern::Compiled {
  pcre2_code* code = nullptr;
  ~Compiled() { pcre2_code_free(code); }
};

std::string Pattern::Match::str(size_t group) const {
  const Group& g = groups.at(group);
  return g.matched ? std::string(text.substr(g.position, g.length)) : std::string();
}

Pattern::Pattern(std::string_view expression, bool ignore_case) {
  auto compiled = std::make_shared<Compiled>();
  int error = 0;
  PCRE2_SIZE offset = 0;
  compiled->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(expression.data()), expression.size(),
                                 PCRE2_AUTO_CALLOUT | (ignore_case ? PCRE2_CASELESS : 0), &error, &offset, nullptr);
  if (!compiled->code) throw Error(fmt::format("at offset {}: {}", offset, pcre2_message(error)));
  // Without JIT support (some platforms) the interpreter runs under the same match limit, on the heap.
  pcre2_jit_compile(compiled->code, PCRE2_JIT_COMPLETE);
  compiled_ = std::move(compiled);
}

size_t Pattern::group_count() const {
  uint32_t count = 0;
  pcre2_pattern_info(compiled_->code, PCRE2_INFO_CAPTURECOUNT, &count);
  return count;
}

std::optional<Pattern::Match> Pattern::search(std::string_view text, size_t start) const {
  std::unique_ptr<pcre2_match_data, decltype(&pcre2_match_data_free)> data(
      pcre2_match_data_create_from_pattern(compiled_->code, nullptr), &pcre2_match_data_free);
  if (!data) throw Error("cannot allocate regular-expression match data");
  SearchBudget budget{std::chrono::steady_clock::now() + kSearchTimeLimit};
  const int rc = pcre2_match(compiled_->code, reinterpret_cast<PCRE2_SPTR>(text.data()), text.size(), start, 0, data.get(),
                             thread_match_context(budget));
  if (rc == PCRE2_ERROR_NOMATCH) return std::nullopt;
  if (rc == PCRE2_ERROR_CALLOUT)
    throw PatternLimitError(fmt::format("matching against {} bytes took more than {} ms", text.size(), kSearchTimeLimit.count()));
  if (rc < 0) throw PatternLimitError(fmt::format("matching against {} bytes stopped: {}", text.size(), pcre2_message(rc)));
  const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(data.get());
  Match match;
  match.text = text;
  match.groups.resize(group_count() + 1);
  for (size_t i = 0; i < match.groups.size() && i < pcre2_get_ovector_count(data.get()); ++i)
    if (ovector[2 * i] != PCRE2_UNSET)
      match.groups[i] = {ovector[2 * i], ovector[2 * i + 1] - ovector[2 * i], true};
  return match;
}

}  // namespace ksearch
