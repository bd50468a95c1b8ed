#pragma once
// The deterministic CUDA -> Metal translator behind `ksearch port` (docs/TRANSLATE.md): parses a CUDA
// source with libclang (through the declarations in cuda_include/, not the CUDA toolkit), and writes
// the kernel the task's entry launches as a metal candidate (docs/METAL.md): MLX kernel body, header
// with the __device__ functions, grid/threadgroup/template directives from the launch.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "tasks/task.hpp"

namespace ksearch::translate {

// Something the translator could not translate, with where it is and why.
struct Problem {
  std::string file;
  int line = 0, column = 0;
  std::string construct, reason;
  std::string where() const { return file + ":" + std::to_string(line) + ":" + std::to_string(column); }
};

struct KernelTranslation {
  std::string name;
  int line = 0;
  bool launched = false;                 // the entry launches it: it is the candidate's kernel
  std::map<std::string, int> translated;  // CUDA construct -> how many times it was mapped
  std::vector<Problem> problems;
};

struct Translation {
  std::string candidate;  // the metal candidate file (empty when no kernel could be written)
  std::vector<KernelTranslation> kernels;
  std::vector<Problem> problems;  // outside kernels: parse errors, the entry, the launch
  std::vector<std::string> notes;  // translated, but worth knowing (dropped guards, narrowed doubles)
  bool complete() const;          // no problem anywhere and a candidate written
};

// False (with the reason) when ksearch was built without libclang.
bool available(std::string* why);

// Translates `cuda_file` for `task`: its [entry.cuda] function is the host function that launches the
// kernel; its args name the metal kernel's inputs, outputs, axes and params. Throws Error when the
// task has no [entry.cuda] or the file cannot be read or parsed at all.
Translation translate_file(const std::filesystem::path& cuda_file, const tasks::Task& task);

}  // namespace ksearch::translate
