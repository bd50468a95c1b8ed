// ABI between a compiled kernel (.so built from metal_shim.h) and the metalsim
// runtime. Plain C layout only: the two sides are compiled separately.
#pragma once
#include <stdint.h>

#define METALSIM_ABI_VERSION 7
#define METALSIM_SLOT_BYTES 32

// Kinds of access: plain read, plain write, atomic read-modify-write, the atomic operations a spin-wait repeats
// (load, exchange, compare-exchange), and an atomic store (the one atomic operation that reads no old value).
#define METALSIM_ACCESS_READ 0
#define METALSIM_ACCESS_WRITE 1
#define METALSIM_ACCESS_ATOMIC 2
#define METALSIM_ACCESS_ATOMIC_POLL 3
#define METALSIM_ACCESS_ATOMIC_STORE 4
// Or'ed into a plain read's or write's kind when its address is not a multiple of its size (the compiler assumed it
// was: Metal requires every type's natural alignment).
#define METALSIM_ACCESS_MISALIGNED 8
// Or'ed into a read of bytes copied whole (memcpy of a struct, padding included): checked for bounds and races, not
// for initialization (a struct's padding is never written, and a copied value is checked where a field is used).
#define METALSIM_ACCESS_COPY 16

// Address spaces, as the runtime tells where memory lies (address_space) and as the tags of functions overloaded by
// address space name their parameters' (0: a parameter that is no pointer or reference).
#define METALSIM_SPACE_DEVICE 1
#define METALSIM_SPACE_CONSTANT 2
#define METALSIM_SPACE_THREADGROUP 3
#define METALSIM_SPACE_THREAD 4

typedef struct ms_thread_args {
  uint32_t thread_position_in_grid[3];
  uint32_t thread_position_in_threadgroup[3];
  uint32_t threadgroup_position_in_grid[3];
  uint32_t threads_per_grid[3];
  uint32_t threads_per_threadgroup[3];
  uint32_t threadgroups_per_grid[3];
  uint32_t dispatch_threads_per_threadgroup[3];
  uint32_t thread_index_in_threadgroup;
  uint32_t thread_index_in_simdgroup;
  uint32_t simdgroup_index_in_threadgroup;
  uint32_t simdgroups_per_threadgroup;
  uint32_t dispatch_simdgroups_per_threadgroup;
} ms_thread_args;

// Result of a SIMD-group exchange: the values every active lane contributed.
typedef struct ms_exchange {
  uint64_t active;  // bit i set: lane i took part
  uint32_t lane;    // caller's lane
  uint32_t width;   // lanes in this SIMD group (32 except a partial last group)
  const unsigned char* slots;  // slot of lane i at slots + i * METALSIM_SLOT_BYTES
} ms_exchange;

typedef struct ms_runtime {
  int abi_version;
  // Blocks until the whole threadgroup reaches a barrier. site = source position.
  void (*threadgroup_barrier)(uint32_t flags, uint32_t site);
  // Publishes `bytes` of value, blocks until the SIMD group's active lanes at
  // this site have published, and returns their values (valid until exchange_done).
  ms_exchange (*simd_exchange)(const void* value, uint32_t bytes, uint32_t site);
  void (*exchange_done)(void);
  // Storage for `threadgroup` variable `id` of the running threadgroup.
  void* (*threadgroup_alloc)(uint32_t id, uint32_t bytes, uint32_t align, const char* name);
  // Memory access check (only called while checking is on); kind: METALSIM_ACCESS_*; pc: a return address in
  // the kernel's code at the access, whose line findings name.
  void (*access)(const void* addr, uint32_t bytes, int kind, const void* pc);
  // An index outside an array whose type the compiler knew (-fsanitize=array-bounds): array_type is the type as
  // clang prints it, quoted ("'float[4]'"); index is the value, as unsigned where index_unsigned; pc as above.
  void (*index_out_of_bounds)(const char* array_type, int64_t index, int index_unsigned, const void* pc);
  // The space of the memory at addr (METALSIM_SPACE_*): a buffer's (device, or constant as MLX passes it), threadgroup
  // memory, the kernel library's constant data, else the running thread's own.
  int (*address_space)(const void* addr);
  // A call of a function overloaded by address space whose arguments lie in spaces none of its overloads takes (spaces:
  // each argument's, 0 where no overload has a pointer or reference); stops the thread. pc as above.
  void (*unmatched_overload)(const char* function, const int* spaces, uint32_t count, const void* pc);
  // A SIMD-group function (`function`) of the running thread read lane `lane`, which is not among the `active` lanes
  // of the exchange at `site` or lies past the SIMD group's 32: reports it; returns the byte the undefined value is
  // made of.
  unsigned char (*undefined_lane)(const char* function, uint64_t active, uint32_t lane, uint32_t site);
} ms_runtime;

// A threadgroup variable the kernel declares, in the library's metalsim_tg section (one entry per declaration, reached
// by a thread or not: Metal's compiler gives each its own memory), which metalsim_tg_decls returns; plus one empty
// entry (id 0), so that the section always exists.
typedef struct ms_tg_decl {
  uint32_t id, bytes, align;
  char name[52];  // cut to 51 characters
} ms_tg_decl;

typedef struct ms_kernel_info {
  int abi_version;
  uint32_t num_buffers;
  int uses_sync;  // 0: no barrier, SIMD-group function or atomic; threads may run without fibers
} ms_kernel_info;
