// Recursion, variable length array and function pointer checks on the kernel's call graph. Metal has no recursive
// calls; the host compiler builds them, so the compile step reads the call graph from the compiler's own LLVM IR
// (emitted before any optimization, so that no tail call has become a loop) with line tables that name the user's
// body/header lines. Template instantiations and overloads are distinct functions there, so `sum<N>` calling
// `sum<N - 1>` is no recursion, as in Metal.
#include <algorithm>
#include <cstdlib>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "metalsim/source_internal.hpp"

namespace ksearch::metalsim {

namespace {

struct Call {
  std::string callee;
  std::string location;  // !DILocation id of the call site
};

struct Function {
  std::string subprogram;  // !DISubprogram id
  std::vector<Call> calls;
  std::vector<std::string> dynamic_allocas;  // !DILocation ids of stack allocations sized at run time
  std::vector<std::string> indirect_calls;   // !DILocation ids of calls through a function pointer
};

struct Ir {
  std::map<std::string, Function> functions;           // by symbol, in symbol order
  std::map<std::string, std::string> metadata;         // "!12" -> its text
};

Ir parse_ir(const std::string& ir) {
  static const std::regex define_re(R"(^define [^@]*@("[^"]+"|[\w.$]+)\(.*)");
  static const std::regex call_re(R"(\b(?:call|invoke)\b[^@]*@("[^"]+"|[\w.$]+)\()");
  static const std::regex dbg_re(R"(!dbg (![0-9]+))");
  static const std::regex metadata_re(R"(^(![0-9]+) = (.*)$)");
  static const std::regex dynamic_alloca_re(R"(= alloca [^,]+, i\d+ %)");
  // A call whose callee, the last word before the arguments' parenthesis, is a value (`call float %5(float %6)`).
  static const std::regex indirect_call_re(R"(\b(?:call|invoke)\b[^(]*\s%[\w.$]+\()");
  Ir out;
  Function* current = nullptr;
  std::istringstream in(ir);
  std::string line;
  std::smatch m;
  auto dbg = [&] {
    std::smatch d;
    return std::regex_search(line, d, dbg_re) ? std::string(d[1]) : std::string();
  };
  while (std::getline(in, line)) {
    if (line.rfind("define ", 0) == 0 && std::regex_match(line, m, define_re)) {
      current = &out.functions[m[1]];
      current->subprogram = dbg();
    } else if (line == "}") {
      current = nullptr;
    } else if (current && std::regex_search(line, dynamic_alloca_re)) {
      current->dynamic_allocas.push_back(dbg());
    } else if (current && std::regex_search(line, indirect_call_re)) {
      current->indirect_calls.push_back(dbg());
    } else if (current && std::regex_search(line, m, call_re)) {
      current->calls.push_back({m[1], dbg()});
    } else if (line.rfind("!", 0) == 0 && std::regex_match(line, m, metadata_re)) {
      out.metadata[m[1]] = m[2];
    }
  }
  return out;
}

// The text of a metadata node ("!12"), "" where there is none.
std::string metadata(const Ir& ir, const std::string& id) {
  const auto found = ir.metadata.find(id);
  return found == ir.metadata.end() ? std::string() : found->second;
}

std::string field(const std::string& metadata, const std::string& name) {
  const std::regex re("[(, ]" + name + R"(: ("[^"]*"|[^,)]+))");
  std::smatch m;
  if (!std::regex_search(metadata, m, re)) return "";
  std::string value = m[1];
  if (value.size() >= 2 && value.front() == '"') value = value.substr(1, value.size() - 2);
  return value;
}

}  // namespace

std::vector<CompileMessage> find_recursion(const std::string& llvm_ir) {
  const Ir ir = parse_ir(llvm_ir);
  auto meta = [&](const std::string& id) { return metadata(ir, id); };
  // The user's functions are those whose lines come from the body or the header (#line names, source.cpp).
  auto user_file = [&](const Function& f) {
    const std::string file = field(meta(field(meta(f.subprogram), "file")), "filename");
    return std::string(file == "metalsim-body" ? "body" : file == "metalsim-header" ? "header" : "");
  };
  auto reaches = [&](const std::string& from) {
    std::set<std::string> seen;
    std::vector<std::string> todo = {from};
    while (!todo.empty()) {
      const auto f = ir.functions.find(todo.back());
      todo.pop_back();
      if (f == ir.functions.end()) continue;
      for (const Call& c : f->second.calls)
        if (seen.insert(c.callee).second) todo.push_back(c.callee);
    }
    return seen;
  };

  std::vector<CompileMessage> out;
  std::set<std::string> reported;  // functions of a cycle already reported
  for (const auto& [symbol, function] : ir.functions) {
    if (reported.count(symbol) || user_file(function).empty()) continue;
    const std::set<std::string> from_here = reaches(symbol);
    if (!from_here.count(symbol)) continue;
    std::vector<std::string> cycle;  // the functions that lead back here
    for (const std::string& other : from_here)
      if (other == symbol || reaches(other).count(symbol)) cycle.push_back(other);
    reported.insert(cycle.begin(), cycle.end());
    const std::string name = field(meta(function.subprogram), "name");
    for (const Call& c : function.calls) {
      if (std::find(cycle.begin(), cycle.end(), c.callee) == cycle.end()) continue;
      const std::string location = meta(c.location);
      const std::string callee = field(meta(ir.functions.at(c.callee).subprogram), "name");
      std::string message = "recursive call: '" + name + "' calls " +
                            (c.callee == symbol ? "itself" : "'" + callee + "', which leads back to it") +
                            "; Metal has no recursion (use a loop)";
      out.push_back({user_file(function), std::atoi(field(location, "line").c_str()),
                     std::atoi(field(location, "column").c_str()), "error", message});
      break;
    }
  }
  return out;
}

// A call through a function pointer (a function passed as an argument: `apply(twice, v)`, `Reduce(v, max_op)`): Metal
// has no function pointers (but the visible function tables of ray tracing and dynamic libraries); the host compiler
// calls through one. Only the user's calls count: those at the body's or the header's lines (the kernel's own function
// is metalsim's, its body the user's: `auto f = ident; f(x)`).
std::vector<CompileMessage> find_function_pointer_calls(const std::string& llvm_ir) {
  const Ir ir = parse_ir(llvm_ir);
  auto meta = [&](const std::string& id) { return metadata(ir, id); };
  std::vector<CompileMessage> out;
  for (const auto& [symbol, function] : ir.functions) {
    for (const std::string& id : function.indirect_calls) {
      const std::string location = meta(id);
      const std::string file = field(meta(field(meta(field(location, "scope")), "file")), "filename");
      if (file != "metalsim-body" && file != "metalsim-header") continue;
      out.push_back({file == "metalsim-body" ? "body" : "header", std::atoi(field(location, "line").c_str()),
                     std::atoi(field(location, "column").c_str()), "error",
                     "call through a function pointer: Metal has no function pointers (pass a function object, a struct "
                     "with an operator(), instead of a function)"});
    }
  }
  return out;
}

// A variable length array is a C99 extension the host compiler allows in C++ and Metal lacks. -Werror=vla refuses it
// with the compiler's message, but a `#pragma clang diagnostic` in the kernel can turn that error off: the IR's
// allocation sized at run time cannot be.
std::vector<CompileMessage> find_variable_length_arrays(const std::string& llvm_ir) {
  const Ir ir = parse_ir(llvm_ir);
  auto meta = [&](const std::string& id) { return metadata(ir, id); };
  std::vector<CompileMessage> out;
  for (const auto& [symbol, function] : ir.functions)
    for (const std::string& id : function.dynamic_allocas) {
      const std::string location = meta(id);
      const std::string file = field(meta(field(meta(field(location, "scope")), "file")), "filename");
      out.push_back({file == "metalsim-body" ? "body" : file == "metalsim-header" ? "header" : "generated",
                     std::atoi(field(location, "line").c_str()), std::atoi(field(location, "column").c_str()), "error",
                     kVariableLengthArrayMessage});
    }
  return out;
}

}  // namespace ksearch::metalsim
