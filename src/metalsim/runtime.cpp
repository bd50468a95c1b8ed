// Execution of a compiled kernel: threadgroups in parallel on host threads,
// each Metal thread a fiber (Boost.Context) so barriers and SIMD-group
// functions block exactly like on the GPU; plus the diagnostics.
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>

#include <boost/context/detail/fcontext.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>

#include "metalsim/line_table.hpp"
#include "metalsim/metalsim.hpp"
#include "metalsim/source_internal.hpp"
#include "metalsim_abi.h"

namespace ksearch::metalsim {

namespace ctx = boost::context::detail;

std::string_view diagnostic_kind_name(DiagnosticKind k) {
  switch (k) {
    case DiagnosticKind::OutOfBounds: return "out_of_bounds";
    case DiagnosticKind::ThreadgroupMemoryLimit: return "threadgroup_memory_limit";
    case DiagnosticKind::ThreadgroupTooLarge: return "threadgroup_too_large";
    case DiagnosticKind::BarrierDivergence: return "barrier_divergence";
    case DiagnosticKind::Deadlock: return "deadlock";
    case DiagnosticKind::DataRace: return "data_race";
    case DiagnosticKind::UninitializedRead: return "uninitialized_read";
    case DiagnosticKind::InactiveLaneRead: return "inactive_lane_read";
    case DiagnosticKind::InputWrite: return "input_write";
    case DiagnosticKind::MisalignedAccess: return "misaligned_access";
    case DiagnosticKind::DivisionByZero: return "division_by_zero";
    case DiagnosticKind::StackOverflow: return "stack_overflow";
    case DiagnosticKind::Timeout: return "timeout";
    case DiagnosticKind::Trap: return "trap";
    case DiagnosticKind::UnmatchedOverload: return "unmatched_overload";
    case DiagnosticKind::InvalidLaunch: return "invalid_launch";
    case DiagnosticKind::Internal: return "internal";
  }
  return "unknown";
}

std::string_view schedule_name(Schedule s) {
  switch (s) {
    case Schedule::in_order: return "in-order";
    case Schedule::reversed: return "reversed";
    case Schedule::atomic_lockstep: return "atomic-lockstep";
  }
  return "unknown";
}

std::string_view schedule_description(Schedule s) {
  switch (s) {
    case Schedule::in_order: return "metalsim's in-order schedule";
    case Schedule::reversed:
      return "metalsim's reversed schedule (threadgroups, SIMD groups and the lanes of each in reverse order)";
    case Schedule::atomic_lockstep:
      return "metalsim's atomic-lockstep schedule (the lanes of a SIMD group each do an atomic operation before any goes "
             "on, as a GPU executes one instruction for the whole SIMD group)";
  }
  return "metalsim's unknown schedule";
}

namespace {

constexpr uint32_t kSimdWidth = 32;
constexpr std::size_t kTgLimit = 32768;
constexpr std::size_t kArenaCapacity = 1 << 20;
constexpr std::size_t kRedZone = 64 * 1024;
constexpr uint32_t kMemDevice = 1;       // mem_flags::mem_device
constexpr uint32_t kMemThreadgroup = 2;  // mem_flags::mem_threadgroup
// Atomic loads (exchanges, compare-exchanges) in a row that find one location unchanged: the thread is stuck
// waiting for another thread to change it (a spin-wait). High enough that no honest loop gets there.
constexpr uint32_t kSpinPolls = 4096;
// Fewer polls of one value that then changes: the thread waited for another one (a retry loop of
// compare-exchanges finds a new value every time).
constexpr uint32_t kWaitPolls = 8;
constexpr int kRead = METALSIM_ACCESS_READ, kWrite = METALSIM_ACCESS_WRITE, kAtomic = METALSIM_ACCESS_ATOMIC,
              kAtomicPoll = METALSIM_ACCESS_ATOMIC_POLL, kAtomicStore = METALSIM_ACCESS_ATOMIC_STORE,
              kMisaligned = METALSIM_ACCESS_MISALIGNED, kCopy = METALSIM_ACCESS_COPY;

using EntryFn = void (*)(void* const*, const ms_thread_args*);

std::string site_text(uint32_t site) {
  if (site == 0xffffffffu) return "a simdgroup_store";
  static constexpr const char* kSections[] = {"line ", "header line ", "body line ", "line "};  // MS_SITE's section
  return kSections[(site >> 10) & 3u] + std::to_string(site >> 12);
}
std::string u3(const uint32_t* v) {
  return "(" + std::to_string(v[0]) + "," + std::to_string(v[1]) + "," + std::to_string(v[2]) + ")";
}

struct Snapshot {
  unsigned char slots[kSimdWidth * METALSIM_SLOT_BYTES];
  uint64_t active = 0;
  uint32_t refs = 0;
};

enum class State { Runnable, WaitSimd, WaitBarrier, Done };

// A store that followed another thread's unordered store to the same device memory. Reported only if it changes the
// bytes there: the check runs at the thread's next call into the runtime, after the store happened.
struct PendingStore {
  const unsigned char* at = nullptr;  // null: none
  uint32_t bytes = 0;
  unsigned char before[16];
  std::string key, message, buffer;
};

// A store to threadgroup memory, whose effect on the race state depends on whether it changed the bytes there
// (stores of the value already there, by any number of threads, are not races). Applied at the thread's next call
// into the runtime, before any other thread of its threadgroup runs.
struct PendingTgStore {
  uint32_t offset = 0, bytes = 0;  // bytes 0: none
  unsigned char before[16];
  const void* pc = nullptr;  // the store's place in the kernel's code
};

struct Thread {
  ms_thread_args args{};
  PendingStore pending;
  PendingTgStore tg_pending;
  const void* access_pc = nullptr;  // a return address in the kernel's code at the access being checked
  const unsigned char* poll_at = nullptr;  // the location of the thread's atomic polls in a row (kSpinPolls)
  uint32_t poll_value = 0, polls = 0;
  ctx::fcontext_t fiber = nullptr;
  State state = State::Runnable;
  uint32_t site = 0;
  uint32_t sg = 0, lane = 0;
  unsigned char slot[METALSIM_SLOT_BYTES];
  Snapshot* snap = nullptr;
};

struct SimdGroup {
  uint32_t first = 0, size = 0, done = 0, simd_wait = 0, tg_wait = 0, epoch = 0;
  std::vector<Snapshot> pool;
  std::vector<Snapshot*> free;
};

struct TgVar {
  uint32_t id, offset, bytes;
  std::string name;
};

// Shadow state of one threadgroup-memory byte for race/uninitialized checks. Thread ids are index + 1 (0: none),
// with the barrier and SIMD epochs of the access.
struct Shadow {
  uint32_t w_tid, w_E, w_S;    // last writer (also one that stored the value already there)
  uint32_t c_tid, c_E, c_S;    // last writer whose store changed the byte
  uint32_t r_tid, r_E, r_S;    // first reader since the last change, in barrier epoch r_E
  uint32_t r2_tid, r2_S;       // another reader of epoch r_E, kept from another SIMD group than r_tid's if any
  uint8_t init;
};

// Race-check state of one device-buffer element. Thread ids are global (threadgroup index * nominal
// threadgroup size + thread index + 1; 0: none). The id words are atomic because threadgroups run on
// several workers; the epochs are only compared by the threadgroup that wrote them (same worker).
struct DeviceCell {
  uint32_t writer;  // last writer, or (with kForeignReader) no writer yet and a reader from another
                    // threadgroup than `reader`'s: the evidence that a later write by any group races
  uint32_t w_epoch, w_simd;
  uint32_t reader;  // a reader; its threadgroup never changes once set (only that group replaces it)
  uint32_t r_epoch, r_simd;
};
constexpr uint32_t kForeignReader = 0x80000000u;

// Cells of one device buffer, allocated a page at a time on first touch, so shadow memory follows
// what the kernel touches rather than the buffer's size.
class DeviceShadow {
 public:
  explicit DeviceShadow(std::size_t cells) : pages_((cells + kPageCells - 1) / kPageCells) {}
  DeviceShadow(const DeviceShadow&) = delete;
  DeviceShadow& operator=(const DeviceShadow&) = delete;
  ~DeviceShadow() {
    for (auto& p : pages_) delete[] p.load();
  }
  DeviceCell& cell(std::size_t i) {
    std::atomic<DeviceCell*>& slot = pages_[i / kPageCells];
    DeviceCell* page = slot.load(std::memory_order_acquire);
    if (!page) {
      auto* fresh = new DeviceCell[kPageCells]();
      if (slot.compare_exchange_strong(page, fresh, std::memory_order_acq_rel)) page = fresh;
      else delete[] fresh;  // another worker allocated it first; `page` now holds theirs
    }
    return page[i % kPageCells];
  }

 private:
  static constexpr std::size_t kPageCells = 1024;
  std::vector<std::atomic<DeviceCell*>> pages_;
};

// Where a buffer of the dispatch lies and the address space MLX passes it in (device, or constant: a small input, the
// shapes and strides), for the calls of functions overloaded by address space.
struct BufferSpace {
  const unsigned char *lo, *hi;
  int space;  // METALSIM_SPACE_*
};

struct DeviceBuffer {
  std::string name;
  const unsigned char* lo;
  const unsigned char* hi;
  std::size_t elem;
  std::unique_ptr<DeviceShadow> shadow;  // null: no race checks on device memory
  const void* input = nullptr;           // an input's caller memory (this buffer a padded copy of it); null: an output
};

// Where a kernel library lies in memory: what its code may read besides the dispatch's memory (its constant tables and
// literals), and the range of its code, which tells a fault of the kernel's from one of the process's.
struct KernelImage {
  struct Segment {
    const unsigned char *lo, *hi;
  };
  std::vector<Segment> segments;
  Segment code{nullptr, nullptr};

  bool holds(const unsigned char* p, uint32_t bytes) const {
    return std::any_of(segments.begin(), segments.end(), [&](const Segment& s) { return p >= s.lo && p + bytes <= s.hi; });
  }
  bool runs(const void* pc) const { return pc >= code.lo && pc < code.hi; }
};

struct Run;

struct Worker {
  Run* run = nullptr;
  std::vector<Thread> threads;
  std::vector<SimdGroup> sgs;
  unsigned char* stacks = nullptr;
  std::size_t stacks_bytes = 0, stack_bytes = 0;
  ctx::fcontext_t sched = nullptr;
  Thread* cur = nullptr;
  bool fiber_mode = true;
  bool abort = false;
  jmp_buf thread_exit;  // without fibers: where a thread that cannot go on (a faulting access) leaves its kernel call
  std::unique_ptr<unsigned char[]> signal_stack;  // where a fault handler runs: a fault may be the stack's overflow
  unsigned char* stack_top = nullptr;  // without fibers: the running thread's kernel call has its stack below this
  bool spinning = false;  // the running thread is in a spin-wait (listed in Run::spin_waits)
  // threadgroup state
  uint32_t n = 0, done = 0, bar_arrived = 0, bar_site = 0, bar_other_site = 0, epoch = 0;
  uint32_t bar_flags = 0;      // mem_flags of the threads waiting at the barrier
  uint32_t device_epoch = 0;   // barriers with mem_device so far: what orders device memory
  // A barrier without mem_threadgroup (mem_none, mem_device only) since the last one with it: it ordered no
  // threadgroup memory, which a race's message then says.
  bool barrier_without_threadgroup_flag = false;
  uint32_t first_thread = 0;   // global id of thread 0 of the threadgroup, minus one
  bool bar_mismatch = false;
  std::vector<unsigned char> arena = std::vector<unsigned char>(kArenaCapacity);
  std::size_t arena_used = 0;  // the variables, and with bounds checks the red zones before each
  std::size_t metal_bytes = 0; // the variables as Metal lays them out, without red zones
  std::vector<TgVar> vars;
  std::vector<Shadow> shadow;
  uint32_t tg_pos[3]{};

  ~Worker() {
    if (stacks) munmap(stacks, stacks_bytes);
  }
};

thread_local Worker* t_worker = nullptr;

struct Run {
  RunOptions opt;
  EntryFn entry = nullptr;
  LineTable* lines = nullptr;  // the kernel library's lines, for findings at memory accesses
  const KernelImage* image = nullptr;
  std::vector<void*> bufs;
  std::vector<BufferSpace> buffer_spaces;
  std::vector<DeviceBuffer> device;
  uint32_t grid[3]{}, tg[3]{}, ntg[3]{};
  std::atomic<uint64_t> next_tg{0};
  std::atomic<bool> stop{false};
  // Workers still taking threadgroups, and what each spinning one waits on: when all spin and every value they wait
  // on is unchanged, none can change what they wait for. A flag counts alone would call a deadlock while a worker whose
  // value was changed has not polled again yet (its host thread not scheduled: more workers than cores, a loaded host).
  std::atomic<unsigned> live_workers{0};
  struct SpinWait {
    const unsigned char* at;
    uint32_t value, bytes;
  };
  std::mutex spin_mu;
  std::map<const Worker*, SpinWait> spin_waits;
  // The host threads running threadgroups, which a timeout signals until each has left its kernel call.
  std::mutex workers_mu;
  std::condition_variable workers_done;
  std::vector<pthread_t> running;
  bool finished = false;
  std::atomic<bool> timed_out{false};
  std::mutex mu;
  std::vector<Diagnostic> diags;
  std::map<std::string, std::size_t> seen;  // dedupe key -> index in diags

  void tg_position(uint64_t k, uint32_t tgp[3]) const {
    tgp[0] = static_cast<uint32_t>(k % ntg[0]);
    tgp[1] = static_cast<uint32_t>((k / ntg[0]) % ntg[1]);
    tgp[2] = static_cast<uint32_t>(k / (static_cast<uint64_t>(ntg[0]) * ntg[1]));
  }
  uint32_t nominal_threads() const { return tg[0] * tg[1] * tg[2]; }

  // The attribute values of thread i of threadgroup tgp (threadgroups at the grid's edge are smaller).
  ms_thread_args thread_args(const uint32_t tgp[3], uint32_t i) const {
    uint32_t dims[3];
    for (int d = 0; d < 3; ++d) dims[d] = std::min(tg[d], grid[d] - tgp[d] * tg[d]);
    const uint32_t n = dims[0] * dims[1] * dims[2];
    const uint32_t local[3] = {i % dims[0], (i / dims[0]) % dims[1], i / (dims[0] * dims[1])};
    ms_thread_args a{};
    for (int d = 0; d < 3; ++d) {
      a.thread_position_in_threadgroup[d] = local[d];
      a.threadgroup_position_in_grid[d] = tgp[d];
      a.thread_position_in_grid[d] = tgp[d] * tg[d] + local[d];
      a.threads_per_grid[d] = grid[d];
      a.threads_per_threadgroup[d] = dims[d];
      a.threadgroups_per_grid[d] = ntg[d];
      a.dispatch_threads_per_threadgroup[d] = tg[d];
    }
    a.thread_index_in_threadgroup = i;
    a.thread_index_in_simdgroup = i % kSimdWidth;
    a.simdgroup_index_in_threadgroup = i / kSimdWidth;
    a.simdgroups_per_threadgroup = (n + kSimdWidth - 1) / kSimdWidth;
    a.dispatch_simdgroups_per_threadgroup = (nominal_threads() + kSimdWidth - 1) / kSimdWidth;
    return a;
  }

  void report(DiagnosticKind kind, const std::string& key, std::string msg, const Thread* th, const uint32_t* tgp,
              std::string buffer, bool fatal) {
    std::lock_guard<std::mutex> lock(mu);
    if (fatal) stop = true;
    std::string k = std::string(diagnostic_kind_name(kind)) + "|" + key;
    if (auto it = seen.find(k); it != seen.end()) {
      diags[it->second].count++;
      return;
    }
    if (diags.size() >= opt.max_diagnostics) return;
    Diagnostic d;
    d.kind = kind;
    d.message = std::move(msg);
    d.buffer = std::move(buffer);
    if (th) {
      d.has_thread = true;
      std::copy_n(th->args.thread_position_in_grid, 3, d.thread_position.begin());
      std::copy_n(th->args.threadgroup_position_in_grid, 3, d.threadgroup_position.begin());
    } else if (tgp) {
      std::copy_n(tgp, 3, d.threadgroup_position.begin());
    }
    seen[k] = diags.size();
    diags.push_back(std::move(d));
  }
};

std::string thread_text(const ms_thread_args& a) {
  return "thread " + u3(a.thread_position_in_grid) + " (threadgroup " + u3(a.threadgroup_position_in_grid) +
         ", local " + u3(a.thread_position_in_threadgroup) + ")";
}
std::string thread_text(const Thread& th) { return thread_text(th.args); }

// " at body line 7": the kernel line of the code at pc (a memory access), where the line tables know it; or "".
std::string at_line(const Run& r, const void* pc) {
  const std::string line = r.lines ? r.lines->line_of(pc) : "";
  return line.empty() ? "" : " at " + line;
}
// The thread making a memory access, and the access's line.
std::string accessor_text(const Run& r, const Thread& th, const void* pc) { return thread_text(th) + at_line(r, pc); }

// A thread named by its global id (DeviceCell), possibly of a threadgroup that has finished.
std::string thread_text(const Run& r, uint32_t id) {
  uint32_t tgp[3];
  r.tg_position((id - 1) / r.nominal_threads(), tgp);
  return thread_text(r.thread_args(tgp, (id - 1) % r.nominal_threads()));
}

// ------------------------------------------------------------ scheduling
void yield_to_scheduler(Worker& w) {
  ctx::transfer_t t = ctx::jump_fcontext(w.sched, nullptr);
  w.sched = t.fctx;
}

void block_until_runnable(Worker& w, Thread& th) {
  if (!w.fiber_mode) {
    w.run->report(DiagnosticKind::Internal, "nofiber", "barrier or SIMD-group function reached in a kernel run without fibers",
                  &th, nullptr, "", true);
    th.state = State::Runnable;
    return;
  }
  while (th.state != State::Runnable || w.abort) yield_to_scheduler(w);
}

// When every live lane of a SIMD group is blocked, release the lanes waiting at
// the earliest collective site (program order approximates reconvergence).
void resolve_simd(Worker& w, SimdGroup& sg) {
  if (sg.simd_wait == 0 || sg.simd_wait + sg.tg_wait + sg.done < sg.size) return;
  uint32_t site = 0xffffffffu;
  bool any = false;
  for (uint32_t i = 0; i < sg.size; ++i) {
    const Thread& th = w.threads[sg.first + i];
    if (th.state == State::WaitSimd && (!any || th.site < site)) site = th.site, any = true;
  }
  Snapshot* s = sg.free.back();
  sg.free.pop_back();
  s->active = 0;
  s->refs = 0;
  for (uint32_t i = 0; i < sg.size; ++i) {
    Thread& th = w.threads[sg.first + i];
    if (th.state != State::WaitSimd || th.site != site) continue;
    s->active |= 1ull << i;
    std::memcpy(s->slots + i * METALSIM_SLOT_BYTES, th.slot, METALSIM_SLOT_BYTES);
    s->refs++;
    th.snap = s;
    th.state = State::Runnable;
    sg.simd_wait--;
  }
  sg.epoch++;
}

void fail_barrier(Worker& w, const std::string& msg) {
  w.run->report(DiagnosticKind::BarrierDivergence, msg, msg, nullptr, w.tg_pos, "", true);
  w.abort = true;
}

void check_barrier(Worker& w) {
  if (w.bar_arrived == 0 || w.bar_arrived + w.done < w.n) return;
  if (w.done > 0) {
    fail_barrier(w, "threadgroup_barrier at " + site_text(w.bar_site) + " reached by " + std::to_string(w.bar_arrived) +
                        " of " + std::to_string(w.n) + " threads of threadgroup " + u3(w.tg_pos) + "; " +
                        std::to_string(w.done) + " finished without reaching it (every thread must reach a barrier)");
    return;
  }
  if (w.bar_mismatch) {
    fail_barrier(w, "threads of threadgroup " + u3(w.tg_pos) + " wait at different threadgroup_barrier calls (" +
                        site_text(w.bar_site) + " and " + site_text(w.bar_other_site) + "): divergent barrier");
    return;
  }
  for (auto& th : w.threads)
    if (th.state == State::WaitBarrier) th.state = State::Runnable;
  for (auto& sg : w.sgs) sg.tg_wait = 0;
  w.bar_arrived = 0;
  // Only a barrier with mem_threadgroup orders threadgroup memory (w.epoch); mem_none is an execution barrier.
  if (w.bar_flags & kMemThreadgroup) w.epoch++;
  w.barrier_without_threadgroup_flag = !(w.bar_flags & kMemThreadgroup);
  if (w.bar_flags & kMemDevice) w.device_epoch++;
  w.bar_flags = 0;
}

void on_thread_done(Worker& w, Thread& th) {
  th.state = State::Done;
  w.done++;
  SimdGroup& sg = w.sgs[th.sg];
  sg.done++;
  resolve_simd(w, sg);
  check_barrier(w);
}

void apply_pending_tg_store(Worker& w, Thread& th);

// The running thread stopped polling an atomic (watch_poll): its worker is no longer stuck in a spin-wait.
void stop_spinning(Worker& w) {
  if (!w.spinning) return;
  w.spinning = false;
  std::lock_guard<std::mutex> lock(w.run->spin_mu);
  w.run->spin_waits.erase(&w);
}

// The checks that wait for the thread's last store to have happened: a deferred device race (PendingStore),
// reported if the store changed the bytes, and a threadgroup store (PendingTgStore). Called at the thread's next
// call into the runtime and when it finishes.
void check_pending_store(Worker& w, Thread& th) {
  apply_pending_tg_store(w, th);
  PendingStore& p = th.pending;
  if (!p.at) return;
  if (std::memcmp(p.at, p.before, p.bytes) != 0)
    w.run->report(DiagnosticKind::DataRace, p.key, std::move(p.message), &th, nullptr, p.buffer, false);
  p = PendingStore{};
}

void fiber_main(ctx::transfer_t t) {
  Worker& w = *t_worker;
  w.sched = t.fctx;
  Thread& th = *static_cast<Thread*>(t.data);
  w.run->entry(w.run->bufs.data(), &th.args);
  check_pending_store(w, th);
  stop_spinning(w);
  on_thread_done(w, th);
  ctx::jump_fcontext(w.sched, nullptr);
}

// ------------------------------------------------------ runtime callbacks
void rt_threadgroup_barrier(uint32_t flags, uint32_t site) {
  Worker& w = *t_worker;
  Thread& th = *w.cur;
  check_pending_store(w, th);
  stop_spinning(w);
  th.state = State::WaitBarrier;
  th.site = site;
  w.bar_flags |= flags;
  if (w.bar_arrived == 0) w.bar_site = site;
  else if (site != w.bar_site) w.bar_mismatch = true, w.bar_other_site = site;
  w.bar_arrived++;
  SimdGroup& sg = w.sgs[th.sg];
  sg.tg_wait++;
  resolve_simd(w, sg);
  check_barrier(w);
  block_until_runnable(w, th);
}

ms_exchange rt_simd_exchange(const void* value, uint32_t bytes, uint32_t site) {
  Worker& w = *t_worker;
  Thread& th = *w.cur;
  check_pending_store(w, th);
  stop_spinning(w);
  SimdGroup& sg = w.sgs[th.sg];
  if (!w.fiber_mode) {
    block_until_runnable(w, th);
    std::memcpy(th.slot, value, bytes);
    return {1ull << th.lane, th.lane, sg.size, th.slot - th.lane * METALSIM_SLOT_BYTES};
  }
  if (bytes) std::memcpy(th.slot, value, std::min<uint32_t>(bytes, METALSIM_SLOT_BYTES));
  th.state = State::WaitSimd;
  th.site = site;
  sg.simd_wait++;
  resolve_simd(w, sg);
  block_until_runnable(w, th);
  return {th.snap->active, th.lane, sg.size, th.snap->slots};
}

void rt_exchange_done() {
  Worker& w = *t_worker;
  Thread& th = *w.cur;
  if (!th.snap) return;
  if (--th.snap->refs == 0) w.sgs[th.sg].free.push_back(th.snap);
  th.snap = nullptr;
}

// Bytes left unused after a threadgroup variable when bounds are checked, before the next one: an index past the
// variable (up to its own size, at most 4 KiB) lands there, not in a neighbour, and is reported.
std::size_t tg_red_zone_after(const Worker& w, std::size_t variable_bytes) {
  if (!w.run->opt.check_bounds) return 0;
  return (std::clamp<std::size_t>(variable_bytes, 64, 4096) + 15) / 16 * 16;
}
// The red zone before the next variable (before the first too: an index below 0 lands there).
std::size_t tg_red_zone(const Worker& w) { return tg_red_zone_after(w, w.vars.empty() ? 0 : w.vars.back().bytes); }

void* rt_threadgroup_alloc(uint32_t id, uint32_t bytes, uint32_t align, const char* name) {
  Worker& w = *t_worker;
  for (const auto& v : w.vars)
    if (v.id == id) return w.arena.data() + v.offset;
  std::size_t off = (w.arena_used + tg_red_zone(w) + align - 1) / align * align;
  w.metal_bytes = (w.metal_bytes + align - 1) / align * align + bytes;
  if (off + bytes > kArenaCapacity) {
    w.run->report(DiagnosticKind::ThreadgroupMemoryLimit, "cap",
                  "threadgroup memory exceeds metalsim's 1 MiB arena (Metal allows 32 KiB)", w.cur, nullptr, name, true);
    w.abort = true;
    off = 0;  // keep the fiber's pointer valid until it is abandoned
  } else {
    // Uninitialized: the variable, the red zone before it and the one after it (where the next variable's would
    // begin) hold RunOptions::undefined_fill, so that whatever an out-of-bounds or uninitialized read finds is the
    // same in every threadgroup and run (0xFF: NaN, all ones).
    const std::size_t filled_to = std::min(kArenaCapacity, off + bytes + tg_red_zone_after(w, bytes));
    std::memset(w.arena.data() + w.arena_used, w.run->opt.undefined_fill, filled_to - w.arena_used);
    w.arena_used = off + bytes;
  }
  w.vars.push_back({id, static_cast<uint32_t>(off), bytes, name});
  if (w.shadow.size() < w.arena_used) w.shadow.resize(w.arena_used, Shadow{});
  return w.arena.data() + off;
}

const TgVar* var_at(const Worker& w, std::size_t off) {
  for (const auto& v : w.vars)
    if (off >= v.offset && off < v.offset + v.bytes) return &v;
  return nullptr;
}

// Whether an access by thread `other` of th's threadgroup (index + 1, 0: none), made at barrier epoch E
// and its SIMD group's epoch S, is unordered with th's access now: no barrier counted by `epoch` between,
// and, within one SIMD group, no SIMD-group function between.
bool unordered_in_group(const Worker& w, const Thread& th, uint32_t other, uint32_t E, uint32_t S, uint32_t epoch) {
  if (other == 0 || &w.threads[other - 1] == &th || E != epoch) return false;
  return !(w.threads[other - 1].sg == th.sg && S != w.sgs[th.sg].epoch);
}

// Unguarded stores of a reduction's result by every thread are the usual cause of write-write races.
constexpr const char* kOneWriterHint =
    "`+=`-style updates count as writes: have one thread store a shared result, e.g. under "
    "`if (thread_index_in_threadgroup == 0)`, and the others read it after a barrier)";

struct TgPlace {
  std::string text, variable;  // "threadgroup variable 'x' (byte 3)" and "x", or "threadgroup memory" and ""
};
TgPlace tg_place(const Worker& w, std::size_t off) {
  const TgVar* v = var_at(w, off);
  if (!v) return {"threadgroup memory", ""};
  return {"threadgroup variable '" + v->name + "' (byte " + std::to_string(off - v->offset) + ")", v->name};
}

// How a threadgroup race's accesses are unordered.
std::string no_threadgroup_barrier_text(const Worker& w) {
  return w.barrier_without_threadgroup_flag
             ? " with no threadgroup_barrier(mem_flags::mem_threadgroup) between (a barrier with only mem_device or "
               "mem_none does not order threadgroup memory)"
             : " with no barrier between";
}

void report_tg_race(Worker& w, Thread& th, std::size_t off, const std::string& what) {
  const TgPlace place = tg_place(w, off);
  w.run->report(DiagnosticKind::DataRace, place.variable, "data race on " + place.text + ": " + what, &th, nullptr,
                place.variable, false);
}

// The race state after th's store to threadgroup memory. A store that left the bytes as they were (every thread
// storing the same flag or reduction result) conflicts with nothing: any order of such stores and of reads gives
// the same values. A store that changed them conflicts with an unordered store or read of its bytes by another
// thread. `before` null: the bytes before are unknown (a store too wide to record), it counts as a change.
void apply_tg_store(Worker& w, Thread& th, std::size_t off, uint32_t bytes, const unsigned char* before,
                    const void* pc) {
  const uint32_t me = static_cast<uint32_t>(&th - w.threads.data()) + 1;
  const uint32_t S = w.sgs[th.sg].epoch;
  auto unordered = [&](uint32_t tid, uint32_t E, uint32_t Sx) { return unordered_in_group(w, th, tid, E, Sx, w.epoch); };
  const bool changed = !before || std::memcmp(before, w.arena.data() + off, bytes) != 0;
  for (uint32_t b = 0; b < bytes && off + b < w.arena_used; ++b) {
    Shadow& s = w.shadow[off + b];
    s.w_tid = me, s.w_E = w.epoch, s.w_S = S;
    if (!changed) continue;
    uint32_t other = 0;
    const char* what = "";
    if (unordered(s.c_tid, s.c_E, s.c_S)) other = s.c_tid, what = "written";
    else if (unordered(s.r_tid, s.r_E, s.r_S)) other = s.r_tid, what = "read";
    else if (unordered(s.r2_tid, s.r_E, s.r2_S)) other = s.r2_tid, what = "read";
    if (other) {
      std::string msg = std::string(what) + " by " + thread_text(w.threads[other - 1]) + " and written by " +
                        accessor_text(*w.run, th, pc) + no_threadgroup_barrier_text(w);
      if (*what == 'w') msg += std::string(" (they stored different values; ") + kOneWriterHint;
      report_tg_race(w, th, off + b, msg);
    }
    s.c_tid = me, s.c_E = w.epoch, s.c_S = S;
    s.r_tid = s.r2_tid = 0;
  }
}

void apply_pending_tg_store(Worker& w, Thread& th) {
  PendingTgStore& p = th.tg_pending;
  if (!p.bytes) return;
  const uint32_t bytes = p.bytes;
  p.bytes = 0;
  apply_tg_store(w, th, p.offset, bytes, p.before, p.pc);
}

void report_uninitialized(Worker& w, Thread& th, std::size_t off, const char* what) {
  const TgPlace place = tg_place(w, off);
  w.run->report(DiagnosticKind::UninitializedRead, place.variable,
                std::string(what) + " uninitialized " + place.text + " by " + accessor_text(*w.run, th, th.access_pc),
                &th, nullptr, place.variable, false);
}

void tg_read(Worker& w, Thread& th, std::size_t off, uint32_t bytes, bool copy) {
  const RunOptions& o = w.run->opt;
  const uint32_t me = static_cast<uint32_t>(&th - w.threads.data()) + 1;
  const uint32_t S = w.sgs[th.sg].epoch;
  for (uint32_t b = 0; b < bytes && off + b < w.arena_used; ++b) {
    Shadow& s = w.shadow[off + b];
    if (o.check_uninitialized && !s.init && !copy) report_uninitialized(w, th, off + b, "read of");
    if (!o.check_races) continue;
    // The read may see an older value only if both the last store and the last store that changed the byte are
    // unordered with it (a later store of the same value that is ordered before the read leaves it no choice).
    if (unordered_in_group(w, th, s.w_tid, s.w_E, s.w_S, w.epoch) &&
        unordered_in_group(w, th, s.c_tid, s.c_E, s.c_S, w.epoch))
      report_tg_race(w, th, off + b,
                     "written by " + thread_text(w.threads[s.c_tid - 1]) + " and read by " +
                         accessor_text(*w.run, th, th.access_pc) + no_threadgroup_barrier_text(w));
    if (s.r_tid == 0 || s.r_E != w.epoch) {
      s.r_tid = me, s.r_E = w.epoch, s.r_S = S, s.r2_tid = 0;
    } else if (s.r_tid != me) {
      // A reader of another SIMD group than the first is unordered with any store of the first one's group.
      const uint32_t first_sg = w.threads[s.r_tid - 1].sg;
      if (!(s.r2_tid && w.threads[s.r2_tid - 1].sg != first_sg && th.sg == first_sg)) s.r2_tid = me, s.r2_S = S;
    }
  }
}

void tg_access(Worker& w, Thread& th, std::size_t off, uint32_t bytes, int kind, bool copy) {
  if (kind == kRead) return tg_read(w, th, off, bytes, copy);
  // Every atomic operation but a store reads the old value: an atomic counter nobody set first starts at garbage.
  const bool reads_old = kind == kAtomic || kind == kAtomicPoll;
  for (uint32_t b = 0; b < bytes && off + b < w.arena_used; ++b) {
    if (reads_old && w.run->opt.check_uninitialized && !w.shadow[off + b].init)
      report_uninitialized(w, th, off + b, "atomic operation on");
    w.shadow[off + b].init = 1;
  }
  if (kind != kWrite || !w.run->opt.check_races) return;  // atomics never race
  if (bytes > sizeof th.tg_pending.before) return apply_tg_store(w, th, off, bytes, nullptr, th.access_pc);
  th.tg_pending.offset = static_cast<uint32_t>(off);
  th.tg_pending.bytes = bytes;
  th.tg_pending.pc = th.access_pc;
  std::memcpy(th.tg_pending.before, w.arena.data() + off, bytes);
}

// Device memory: threads of one threadgroup are ordered by a threadgroup_barrier with mem_device (or, within a SIMD
// group, a SIMD-group function); threads of different threadgroups by nothing, so any write by one group and
// access by another is a race. The order of the steps (record own access, then look at the other kind) makes
// two groups' conflicting accesses on different workers see each other whatever the interleaving.
// Inlined into rt_access, its one caller, which runs at every access.
[[gnu::always_inline]] inline void device_access(Worker& w, Thread& th, DeviceBuffer& b, std::size_t off, uint32_t bytes, int kind) {
  const uint32_t me = w.first_thread + static_cast<uint32_t>(&th - w.threads.data()) + 1;
  const uint32_t epoch = w.device_epoch, simd = w.sgs[th.sg].epoch;
  auto local = [&](uint32_t id) { return id - w.first_thread; };  // index + 1 within this threadgroup
  auto in_group = [&](uint32_t id) { return id != 0 && local(id) - 1 < w.n; };
  auto race = [&](std::size_t element, uint32_t other, const char* other_did, bool same_group) {
    std::string msg = "data race on device buffer '" + b.name + "' (element " + std::to_string(element) + "): " +
                      other_did + " by " + thread_text(*w.run, other) + " and " + (kind ? "written" : "read") + " by " +
                      accessor_text(*w.run, th, th.access_pc) +
                      (same_group ? " with no threadgroup_barrier(mem_flags::mem_device) between (a barrier with only "
                                    "mem_threadgroup does not order device memory)"
                                  : ", in different threadgroups (nothing orders the threadgroups of a dispatch)");
    if (kind) {
      if (*other_did == 'w') msg += std::string(" (they stored different values; ") + kOneWriterHint;
      // A store of the bytes already there (every lane storing a reduction's result) leaves the same contents in any
      // order and gives a reader the same value: the check waits until this store has happened
      // (check_pending_store). A store wider than the record is reported.
      if (bytes <= sizeof th.pending.before) {
        if (!th.pending.at) {
          th.pending = {b.lo + off, bytes, {}, "device|" + b.name, std::move(msg), b.name};
          std::memcpy(th.pending.before, b.lo + off, bytes);
        }
        return;
      }
    }
    w.run->report(DiagnosticKind::DataRace, "device|" + b.name, msg, &th, nullptr, b.name, false);
  };
  for (std::size_t e = off / b.elem; e <= (off + bytes - 1) / b.elem; ++e) {
    DeviceCell& c = b.shadow->cell(e);
    std::atomic_ref<uint32_t> writer(c.writer), reader(c.reader);
    std::atomic_ref<uint32_t> w_epoch(c.w_epoch), w_simd(c.w_simd), r_epoch(c.r_epoch), r_simd(c.r_simd);
    if (kind == 0) {
      uint32_t rd = reader.load();
      if ((rd == 0 && reader.compare_exchange_strong(rd, me)) ||
          (in_group(rd) && (rd == me || r_epoch.load(std::memory_order_relaxed) != epoch))) {
        if (rd != me) reader.store(me, std::memory_order_relaxed);  // same threadgroup: the reader's group stays
        r_epoch.store(epoch, std::memory_order_relaxed);
        r_simd.store(simd, std::memory_order_relaxed);
        rd = me;
      }
      uint32_t wr = writer.load();
      if (wr == 0 && !in_group(rd)) writer.compare_exchange_strong(wr, me | kForeignReader);
      if (wr == 0 || (wr & kForeignReader) || wr == me) continue;
      if (!in_group(wr)) race(e, wr, "written", false);
      else if (unordered_in_group(w, th, local(wr), w_epoch.load(std::memory_order_relaxed),
                                  w_simd.load(std::memory_order_relaxed), epoch))
        race(e, wr, "written", true);
    } else {
      const uint32_t last_epoch = w_epoch.load(std::memory_order_relaxed), last_simd = w_simd.load(std::memory_order_relaxed);
      const uint32_t wr = writer.exchange(me);
      w_epoch.store(epoch, std::memory_order_relaxed);
      w_simd.store(simd, std::memory_order_relaxed);
      if (wr & kForeignReader) {
        // Readers from two threadgroups: name the one outside this group.
        const uint32_t foreign = wr & ~kForeignReader;
        race(e, in_group(foreign) ? reader.load() : foreign, "read", false);
        continue;
      }
      if (wr != 0 && wr != me) {
        if (!in_group(wr)) race(e, wr, "written", false);
        else if (unordered_in_group(w, th, local(wr), last_epoch, last_simd, epoch)) race(e, wr, "written", true);
      }
      const uint32_t rd = reader.load();
      if (rd == 0 || rd == me) continue;
      if (!in_group(rd)) race(e, rd, "read", false);
      else if (unordered_in_group(w, th, local(rd), r_epoch.load(std::memory_order_relaxed),
                                  r_simd.load(std::memory_order_relaxed), epoch))
        race(e, rd, "read", true);
    }
  }
}

// ------------------------------------------------------------ spin-waits
// Stops the running thread's threadgroup: its fiber is never resumed (the next threadgroup reuses the stack).
[[noreturn]] void abandon_threadgroup(Worker& w) {
  stop_spinning(w);
  w.abort = true;
  for (;;) yield_to_scheduler(w);
}

// Stops the running thread where it cannot go on: its threadgroup is abandoned (with fibers) or the thread leaves its
// kernel call and the threadgroup's remaining threads are skipped; the caller has reported a fatal finding.
[[noreturn]] void leave_kernel_call(Worker& w) {
  if (w.fiber_mode) abandon_threadgroup(w);
  longjmp(w.thread_exit, 1);
}

// The 4 bytes (or a bool's 1) an atomic poll at p finds.
uint32_t polled_value(const unsigned char* p, uint32_t bytes) {
  uint32_t value = 0;
  std::memcpy(&value, p, std::min<std::size_t>(bytes, sizeof value));
  return value;
}

// Every live worker spins, and each still finds the value it waits on: no thread is left that could change one.
bool every_worker_stuck(Run& r) {
  std::lock_guard<std::mutex> lock(r.spin_mu);
  if (r.spin_waits.size() < r.live_workers.load()) return false;
  return std::all_of(r.spin_waits.begin(), r.spin_waits.end(),
                     [](const auto& entry) { return polled_value(entry.second.at, entry.second.bytes) == entry.second.value; });
}

// An atomic poll (load, exchange, compare-exchange) by th of the 4 bytes at p. A thread that keeps finding the same
// value waits for another thread to change it, and Metal promises it no forward progress: threads of a threadgroup
// outside barriers, and the threadgroups of a dispatch, may run one after the other, so the one waited for may
// never run (a hang on Apple GPUs). Reported, whether the value changes after kWaitPolls (another worker's
// threadgroup changed it) or never (kSpinPolls). In threadgroup memory nothing can change it (the thread runs until
// its next barrier or SIMD-group function): the threadgroup stops. In device memory the wait goes on until every
// worker is waiting. Polls in a row are counted across barriers and threadgroup-memory accesses (a spin loop may
// broadcast the flag through them), not across device-memory accesses and other atomics. place() names p (TgPlace).
template <class Place>
void watch_poll(Worker& w, Thread& th, const unsigned char* p, uint32_t bytes, bool threadgroup, Place place) {
  Run& r = *w.run;
  auto report_wait = [&](bool fatal) {
    const TgPlace where = place();
    std::string msg = thread_text(th) + " waits" + at_line(r, th.access_pc) + " for another thread to change " +
                      where.text + " (its atomic loads kept finding the same value). ";
    msg += threadgroup ? "Nothing orders or schedules threads of a threadgroup outside barriers (the lanes of a SIMD "
                         "group run in lockstep), so the thread waited for may never run: share the value through "
                         "threadgroup memory and threadgroup_barrier"
                       : "Metal guarantees no forward progress between threadgroups (the one waited for may not run "
                         "before this one finishes: a hang on Apple GPUs), nor between threads outside barriers: pass "
                         "results between threadgroups through a second dispatch";
    r.report(DiagnosticKind::Deadlock, "spin|" + where.variable, msg, &th, nullptr, where.variable, fatal);
  };
  const uint32_t value = polled_value(p, bytes);  // what the operation is about to find (the hook runs before it)
  if (p != th.poll_at || value != th.poll_value) {
    if (p == th.poll_at && th.polls >= kWaitPolls && th.polls < kSpinPolls) report_wait(false);
    stop_spinning(w);
    th.poll_at = p, th.poll_value = value, th.polls = 0;
  }
  if (++th.polls < kSpinPolls || !w.fiber_mode) return;
  if (!w.spinning) {
    w.spinning = true;
    std::lock_guard<std::mutex> lock(r.spin_mu);
    r.spin_waits[&w] = {p, value, bytes};
  }
  if (th.polls == kSpinPolls) report_wait(threadgroup);
  if (threadgroup || r.stop) abandon_threadgroup(w);
  if (every_worker_stuck(r)) {
    r.report(DiagnosticKind::Deadlock, "spin|all",
             "deadlock: every threadgroup still running spins on an atomic that only another one could change", &th,
             nullptr, place().variable, true);
    abandon_threadgroup(w);
  }
  std::this_thread::yield();
}

// MLX binds inputs as const device memory and the kernel shares the caller's array: a write through a cast
// changes what the caller (and a checker comparing against a reference computed from it) sees.
constexpr const char* kInputWriteHint =
    ": MLX passes inputs as const device memory shared with the caller's array, which a write through a cast "
    "changes; write results to an output";

void report_input_write(Run& r, const DeviceBuffer& b, const unsigned char* p, const Thread* th, const void* pc) {
  const std::string line = pc ? at_line(r, pc) : "";
  std::string msg = "write to input buffer '" + b.name + "' (element " + std::to_string((p - b.lo) / b.elem) + ")" +
                    (th ? " by " + thread_text(*th) + line : std::string(", found changed after the run")) +
                    kInputWriteHint;
  r.report(DiagnosticKind::InputWrite, b.name + line, msg, th, nullptr, b.name, false);
}

std::string access_text(int kind) {
  return kind == kRead ? "read of" : kind == kWrite ? "write to" : "atomic operation on";
}

// An access to threadgroup memory at arena offset `off` outside every variable (or running past the end of one),
// named by the variable it overran: the one it starts in or the last one before it, else the first (an index below 0).
void report_tg_out_of_bounds(Worker& w, Thread& th, std::size_t off, int kind, const void* pc) {
  const TgVar* near = nullptr;
  for (const auto& v : w.vars)
    if (v.offset <= off && (!near || v.offset > near->offset)) near = &v;
  if (!near)
    for (const auto& v : w.vars)
      if (!near || v.offset < near->offset) near = &v;
  const std::string line = at_line(*w.run, pc);
  std::string msg = "out-of-bounds " + access_text(kind) + " threadgroup memory";
  if (near) {
    const bool past_all = off >= w.arena_used;
    msg += ": byte " + std::to_string(static_cast<long long>(off) - static_cast<long long>(near->offset)) + " of '" +
           near->name + "' (" + std::to_string(near->bytes) + " bytes)" +
           (past_all ? ", past its declared variables (" + std::to_string(w.metal_bytes) + " bytes)" : "");
  } else {
    msg += " at byte " + std::to_string(off) + ", past its declared variables (none)";
  }
  msg += " by " + thread_text(th) + line;
  // One finding per line: each is a bug of its own.
  w.run->report(DiagnosticKind::OutOfBounds, std::string("threadgroup") + (kind ? "|w" : "|r") + line, msg, &th, nullptr,
                near ? near->name : "threadgroup", false);
}

// A plain access at an address that is not a multiple of its size, through a cast pointer: undefined in Metal (every
// type has its natural alignment), and a 16-byte vector load faults on the host. Reported; after a 16-byte one the
// threadgroup stops (the run is stopped too) rather than crash.
void report_misaligned(Worker& w, Thread& th, const unsigned char* p, uint32_t bytes, int kind, const void* pc) {
  std::string where = "memory at " + std::to_string(reinterpret_cast<uintptr_t>(p) % 64) + " bytes past a 64-byte boundary";
  std::string buffer;
  const unsigned char* a = w.arena.data();
  if (p >= a && p < a + kArenaCapacity) {
    const TgPlace place = tg_place(w, p - a);
    where = place.text, buffer = place.variable;
  }
  for (const auto& b : w.run->device)
    if (p >= b.lo && p < b.hi) where = "device buffer '" + b.name + "' at byte " + std::to_string(p - b.lo), buffer = b.name;
  const std::string line = at_line(*w.run, pc);
  const bool faults = bytes >= 16;
  std::string msg = "misaligned " + std::to_string(bytes) + "-byte " + (kind == kRead ? "read of " : "write to ") +
                    where + " by " + thread_text(th) + line + ": Metal requires a " + std::to_string(bytes) +
                    "-byte type (" + (bytes >= 16 ? "float4, int4" : bytes == 8 ? "float2, half4" : "float, half2") +
                    ") at a multiple of its size; a pointer cast or offset broke it (load the components, or use a "
                    "packed_ type)";
  if (faults) msg += "; the threadgroup stopped here";
  w.run->report(DiagnosticKind::MisalignedAccess, "misaligned" + line, msg, &th, nullptr, buffer, faults);
  if (faults) leave_kernel_call(w);
}

// Memory a kernel's code may write besides the buffers and threadgroup memory: the running Metal thread's stack in
// use, from this call's frame (below the kernel's) to the stack's top.
bool on_own_stack(const Worker& w, const Thread& th, const unsigned char* p, uint32_t bytes) {
  const auto* low = static_cast<const unsigned char*>(__builtin_frame_address(0));
  const unsigned char* top = w.fiber_mode ? w.stacks + (&th - w.threads.data() + 1) * w.stack_bytes : w.stack_top;
  return p >= low && p + bytes <= top;
}

extern const ms_runtime kRuntime;

// What a kernel's code reads besides the dispatch's memory and its stack: its library's constant tables and literals,
// the kernel call's arguments (the buffer table, the thread's attributes; without fibers, the values a SIMD-group
// function exchanged) and the runtime's entry points it calls.
// Kept out of line, as is the refusal below: rt_access, which runs at every access, stays small enough for the
// compiler to inline the device-memory check into it.
[[gnu::noinline]] bool readable_elsewhere(const Worker& w, const unsigned char* p, uint32_t bytes) {
  auto within = [&](const void* start, std::size_t size) {
    const auto* lo = static_cast<const unsigned char*>(start);
    return p >= lo && p + bytes <= lo + size;
  };
  return within(w.threads.data(), w.threads.size() * sizeof(Thread)) || within(&kRuntime, sizeof kRuntime) ||
         within(w.run->bufs.data(), w.run->bufs.size() * sizeof(void*)) || w.run->image->holds(p, bytes);
}

// Where an address outside everything a kernel may access lies, for the message: near 0 a null pointer's offset,
// else its place in a page (addresses differ from run to run).
std::string stray_address_text(const void* p) {
  const auto address = reinterpret_cast<uintptr_t>(p);
  if (address < 65536) return "address " + std::to_string(address) + " (a null pointer, or one never set)";
  return "an address outside every buffer, threadgroup memory and the thread's stack (" + std::to_string(address % 4096) +
         " bytes into a page)";
}

// An access outside every buffer (and its red zones), the threadgroup's memory and the thread's own stack: an index
// far past a buffer, a null or never-set pointer, kernel code reaching into the process (its library's data, such as
// the flag that turns the checks on, or the emulator's state) through an address computed from a function's or a
// cast integer. Metal gives a kernel no other memory. The run stops before the access happens: a read there may
// fault, and after a write no finding could be trusted.
[[noreturn, gnu::noinline, gnu::cold]] void refuse_outside_access(Worker& w, Thread& th, const unsigned char* p, uint32_t bytes, int kind,
                                        const void* pc) {
  const std::string line = at_line(*w.run, pc);
  const char* what = kind == kRead ? "read of " : kind == kWrite ? "write of " : "atomic operation on ";
  std::string msg = "out-of-bounds " + std::string(what) + std::to_string(bytes) + " bytes at " + stray_address_text(p) +
                    " by " + thread_text(th) + line +
                    ": a kernel may access only its buffers, threadgroup and thread memory and its constant data; the "
                    "run stopped here";
  w.run->report(DiagnosticKind::OutOfBounds, "outside" + line, msg, &th, nullptr, "", true);
  leave_kernel_call(w);
}

void rt_access(const void* addr, uint32_t bytes, int kind, const void* pc) {
  Worker& w = *t_worker;
  Thread* th = w.cur;
  if (!th) return;
  if (kind & kMisaligned) {
    kind &= ~kMisaligned;
    report_misaligned(w, *th, static_cast<const unsigned char*>(addr), bytes, kind, pc);
  }
  const bool copy = kind & kCopy;
  kind &= ~kCopy;
  check_pending_store(w, *th);
  // The hook runs before the operation: every other runnable thread takes its turn first (Schedule::atomic_lockstep).
  if (w.run->opt.schedule == Schedule::atomic_lockstep && w.fiber_mode &&
      (kind == kAtomic || kind == kAtomicPoll || kind == kAtomicStore))
    yield_to_scheduler(w);
  const auto* p = static_cast<const unsigned char*>(addr);
  // A range past the top of the address space (a pointer of all ones read from uninitialized memory) lies nowhere;
  // the checks below, which add its size to it, would find it at address 0 and in any range.
  if (reinterpret_cast<uintptr_t>(p) > UINTPTR_MAX - bytes) {
    if (w.run->opt.check_bounds) refuse_outside_access(w, *th, p, bytes, kind, pc);
    return;
  }
  // The values a SIMD-group function exchanged, which the shim reads lane by lane: the runtime's own memory.
  if (th->snap && p >= th->snap->slots && p + bytes <= th->snap->slots + sizeof th->snap->slots) return;
  th->access_pc = pc;
  if (kind != kAtomicPoll) stop_spinning(w);
  if (kind == kAtomic || kind == kAtomicStore) th->polls = 0;
  const unsigned char* a = w.arena.data();
  if (p >= a && p < a + kArenaCapacity) {
    if (w.run->opt.check_bounds && p + bytes > a + kArenaCapacity) refuse_outside_access(w, *th, p, bytes, kind, pc);
    // Outside every variable: in a red zone between them, or past the last in the arena's spare capacity, memory a
    // GPU would not give the threadgroup (an index past an array, a pointer cast or offset reaches it).
    const std::size_t off = p - a;
    const TgVar* in = w.run->opt.check_bounds ? var_at(w, off) : nullptr;
    if (w.run->opt.check_bounds && (!in || off + bytes > in->offset + in->bytes)) {
      report_tg_out_of_bounds(w, *th, off, kind, pc);
      return;
    }
    if (kind == kAtomicPoll && std::size_t(p - a) + bytes <= w.arena_used)
      watch_poll(w, *th, p, bytes, true, [&] { return tg_place(w, p - a); });
    if (w.run->opt.check_races || w.run->opt.check_uninitialized) tg_access(w, *th, p - a, bytes, kind, copy);
    return;
  }
  for (auto& b : w.run->device) {
    if (p < b.lo || p + bytes > b.hi) continue;
    if (kind == kRead || kind == kWrite) th->polls = 0;
    if (kind == kAtomicPoll)
      watch_poll(w, *th, p, bytes, false, [&] {
        return TgPlace{"device buffer '" + b.name + "' (element " + std::to_string((p - b.lo) / b.elem) + ")", b.name};
      });
    if (b.input && (kind == kWrite || kind == kAtomic || kind == kAtomicStore)) report_input_write(*w.run, b, p, th, pc);
    if (b.shadow && kind <= kWrite && bytes) device_access(w, *th, b, p - b.lo, bytes, kind);  // atomics never race
    return;
  }
  if (!w.run->opt.check_bounds) return;
  for (const auto& b : w.run->device) {
    if (p + bytes <= b.lo - kRedZone || p >= b.hi + kRedZone) continue;
    if (p < b.lo - kRedZone || p + bytes > b.hi + kRedZone) refuse_outside_access(w, *th, p, bytes, kind, pc);
    long long off = static_cast<long long>(p - b.lo);
    long long elem = off >= 0 ? off / static_cast<long long>(b.elem) : -((-off + b.elem - 1) / b.elem);
    const std::string line = at_line(*w.run, pc);
    std::string msg = "out-of-bounds " + access_text(kind) + " device buffer '" + b.name + "' at element " +
                      std::to_string(elem) + " (byte offset " + std::to_string(off) + ", buffer has " +
                      std::to_string(b.hi - b.lo) + " bytes) by " + thread_text(*th) + line;
    w.run->report(DiagnosticKind::OutOfBounds, b.name + (kind ? "|w" : "|r") + line, msg, th, nullptr, b.name, false);
    return;
  }
  if (on_own_stack(w, *th, p, bytes) || (kind == kRead && readable_elsewhere(w, p, bytes))) return;
  refuse_outside_access(w, *th, p, bytes, kind, pc);
}

// An index outside an array of known size. A threadgroup array's is left to rt_access, which names the variable (and
// sees a pointer's overrun too); any other is a thread's private array, a struct's member or an inner dimension, where
// the access would read or overwrite the thread's other variables (or the emulator's frames above the kernel's), so
// the run stops before it.
void rt_index_out_of_bounds(const char* array_type, int64_t index, int index_unsigned, const void* pc) {
  Worker& w = *t_worker;
  Thread* th = w.cur;
  if (!th || !w.run->opt.check_bounds || std::string_view(array_type).starts_with("'__ms_tg_array<")) return;
  const std::string shown = index_unsigned ? std::to_string(static_cast<uint64_t>(index)) : std::to_string(index);
  const std::string line = at_line(*w.run, pc);
  w.run->report(DiagnosticKind::OutOfBounds, std::string("index|") + array_type + line,
                "out-of-bounds index " + shown + " into an array of type " + array_type + " by " + thread_text(*th) +
                    line + ": undefined in Metal (it reads or overwrites whatever lies beside the array); the run "
                           "stopped here",
                th, nullptr, "", true);
  leave_kernel_call(w);
}

int rt_address_space(const void* addr) {
  const Worker& w = *t_worker;
  const auto* p = static_cast<const unsigned char*>(addr);
  if (p >= w.arena.data() && p < w.arena.data() + kArenaCapacity) return METALSIM_SPACE_THREADGROUP;
  for (const BufferSpace& b : w.run->buffer_spaces)
    if (p >= b.lo && p < b.hi) return b.space;
  if (w.run->image->holds(p, 1)) return METALSIM_SPACE_CONSTANT;  // a program-scope constant table
  return METALSIM_SPACE_THREAD;
}

// A call that no overload of a function overloaded by address space takes: a compile error on a Mac, found here when
// the call runs (the overloads are told apart by where the arguments point); the run stops.
void rt_unmatched_overload(const char* function, const int* spaces, uint32_t count, const void* pc) {
  Worker& w = *t_worker;
  Thread* th = w.cur;
  if (!th) return;
  static const char* const names[] = {"", "device", "constant", "threadgroup", "thread"};
  std::string arguments;
  for (uint32_t k = 0; k < count; ++k)
    if (spaces[k] > 0 && spaces[k] <= METALSIM_SPACE_THREAD)
      arguments += std::string(arguments.empty() ? "" : ", ") + "argument " + std::to_string(k + 1) + " in " +
                   names[spaces[k]] + " memory";
  const std::string line = at_line(*w.run, pc);
  w.run->report(DiagnosticKind::UnmatchedOverload, std::string(function) + line,
                "no overload of '" + std::string(function) + "' takes its arguments' address spaces (" + arguments +
                    ") in the call by " + thread_text(*th) + line +
                    ": its overloads differ in address spaces only, and a Mac's compiler refuses a call none of them "
                    "matches; the run stopped here",
                th, nullptr, "", true);
  leave_kernel_call(w);
}

// "lanes 0-7 and 9": the lanes set in a SIMD group's active mask.
std::string lanes_text(uint64_t active) {
  std::string text;
  int ranges = 0;
  for (uint32_t l = 0; l < 64;) {
    if (!((active >> l) & 1)) {
      ++l;
      continue;
    }
    uint32_t end = l;
    while (end + 1 < 64 && ((active >> (end + 1)) & 1)) ++end;
    text += (ranges++ ? ", " : "") + std::to_string(l) + (end > l ? "-" + std::to_string(end) : "");
    l = end + 1;
  }
  return ranges ? (active & (active - 1) ? "lanes " : "lane ") + text : "no lane";
}

// A SIMD-group function read a lane that is not active at its call: on a GPU the value is undefined (an exited lane's
// register, another branch's). Reported once per function and call site; the value is made of the undefined fill, as
// an uninitialized threadgroup read's is, so that whether it reaches the outputs can be told.
unsigned char rt_undefined_lane(const char* function, uint64_t active, uint32_t lane, uint32_t site) {
  Worker& w = *t_worker;
  const Thread* th = w.cur;
  if (th && w.run->opt.check_uninitialized) {
    const std::string where = std::string(function) + " at " + site_text(site);
    const std::string why = lane >= kSimdWidth ? "past the SIMD group's " + std::to_string(kSimdWidth) + " lanes"
                                               : "not active at this call (" + lanes_text(active) + " are)";
    w.run->report(DiagnosticKind::InactiveLaneRead, where,
                  where + " read lane " + std::to_string(lane) + ", " + why + ", for " + thread_text(*th) +
                      ": Metal leaves such a value undefined (a lane that returned, took another branch or lies past a "
                      "partial SIMD group's last thread); keep every lane the function reads running to the call",
                  th, nullptr, "", false);
  }
  return w.run->opt.undefined_fill;
}

const ms_runtime kRuntime = {METALSIM_ABI_VERSION, rt_threadgroup_barrier, rt_simd_exchange, rt_exchange_done,
                             rt_threadgroup_alloc,  rt_access,
                             rt_index_out_of_bounds, rt_address_space,
                             rt_unmatched_overload, rt_undefined_lane};

// ------------------------------------------------------- faults, timeout
// What the checks before each access cannot prevent traps on the host: an integer division by zero (a GPU returns an
// unspecified value), a thread's private arrays beyond its stack, a read of a constant table far past its end (the
// instrumentation skips constant data), a trap instruction (local-bounds' check of an access through a pointer into a
// private array among them). A handler turns such a signal, raised by the kernel's own code on a worker, into a
// finding and stops the thread there; any other goes to the handler installed before.
// SIGURG (ignored by default, so harmless where the handler could not be installed) stops a thread that is still
// running when the run's time is up.
constexpr int kKernelSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGURG};
constexpr std::size_t kSignalStackBytes = 256 * 1024;  // the report runs there (strings, the line lookup)
struct sigaction g_previous[NSIG];

// A fault the kernel's code raised, as a finding; the thread is stopped where it was.
[[noreturn]] void stop_at_signal(Worker& w, int sig, const siginfo_t& info, const ucontext_t& uc, const void* pc) {
  Run& r = *w.run;
  Thread& th = *w.cur;
  // line_of takes a return address, which follows its instruction; pc is the instruction itself.
  const std::string at = thread_text(th) + at_line(r, static_cast<const unsigned char*>(pc) + 1);
  const auto address = reinterpret_cast<uintptr_t>(info.si_addr);
  const auto stack_pointer = static_cast<uintptr_t>(uc.uc_mcontext.gregs[REG_RSP]);
  DiagnosticKind kind = DiagnosticKind::OutOfBounds;
  std::string msg;
  if (sig == SIGURG) {
    kind = DiagnosticKind::Timeout;
    std::ostringstream m;
    m << at << " was still running after " << r.opt.timeout_seconds
      << " s (RunOptions::timeout_seconds) and was stopped there: an endless loop? (a loop waiting for another thread "
         "through plain loads never sees a change: nothing schedules the other one)";
    msg = m.str();
  } else if (sig == SIGFPE) {
    kind = DiagnosticKind::DivisionByZero;
    msg = "integer division or remainder by zero (or of the most negative value by -1) by " + at +
          ": undefined in Metal (a GPU returns an unspecified value, the host traps); guard the divisor";
  } else if (sig == SIGILL) {
    kind = DiagnosticKind::Trap;
    msg = "trap instruction reached by " + at +
          ": an access through a pointer outside the array or struct it points into (a private array or struct, a "
          "constant table), code the compiler found unreachable (a read through a pointer it knows is null, the end "
          "of a function that returns a value without a return), or __builtin_trap";
  } else if (address + 4096 >= stack_pointer && address < stack_pointer + 4096) {
    kind = DiagnosticKind::StackOverflow;
    msg = "stack overflow: " + at + " needs more than its " +
          (w.fiber_mode ? std::to_string(w.stack_bytes / 1024) + " KiB stack (RunOptions::stack_bytes)"
                        : std::string("host thread's stack")) +
          ", which holds its private arrays, structs and calls: keep large arrays in device or threadgroup memory";
  } else {
    const bool write = sig == SIGSEGV && (uc.uc_mcontext.gregs[REG_ERR] & 2);  // page fault error code: a write
    // SI_KERNEL: a general protection fault, which names no address (one beyond the address space).
    const std::string where = info.si_code == SI_KERNEL ? "an address beyond the host's address space"
                                                        : stray_address_text(info.si_addr);
    msg = std::string("out-of-bounds ") + (write ? "write to " : "read of ") + where + " by " + at +
          ": the access faulted on the host";
  }
  r.report(kind, "signal|" + at_line(r, static_cast<const unsigned char*>(pc) + 1), msg + "; the run stopped here", &th,
           nullptr, "", true);
  leave_kernel_call(w);
}

void on_kernel_signal(int sig, siginfo_t* info, void* context) {
  const auto& uc = *static_cast<const ucontext_t*>(context);
  const auto* pc = reinterpret_cast<const void*>(uc.uc_mcontext.gregs[REG_RIP]);
  Worker* w = t_worker;
  if (w && w->cur && w->run->image->runs(pc) && (sig != SIGURG || w->run->timed_out)) stop_at_signal(*w, sig, *info, uc, pc);
  const struct sigaction& previous = g_previous[sig];
  if (previous.sa_flags & SA_SIGINFO) {
    if (previous.sa_sigaction) previous.sa_sigaction(sig, info, context);
  } else if (previous.sa_handler == SIG_DFL) {
    if (sig == SIGURG) return;
    // A fault recurs when the instruction runs again, now with the default action; a signal sent is raised again.
    sigaction(sig, &previous, nullptr);
    if (info->si_code <= 0) raise(sig);
  } else if (previous.sa_handler != SIG_IGN) {
    previous.sa_handler(sig);
  }
}

// Once per process; before a sandbox that refuses new handlers (preload) or at the first run. Where it cannot be
// installed, faults stay fatal as before.
void install_signal_handlers() {
  static const bool installed = [] {
    struct sigaction action {};
    action.sa_sigaction = on_kernel_signal;
    // SA_NODEFER: the handler leaves through a jump, never returning to unblock the signal.
    action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    for (int sig : kKernelSignals) sigaction(sig, &action, &g_previous[sig]);
    return true;
  }();
  (void)installed;
}

// Until the run finishes or its time is up; then every worker still in a kernel call gets SIGURG until it has left,
// since a signal that finds it in the emulator's code rather than the kernel's is ignored.
void watch_time(Run& r) {
  std::unique_lock<std::mutex> lock(r.workers_mu);
  const auto limit = std::chrono::duration<double>(r.opt.timeout_seconds);
  if (r.workers_done.wait_for(lock, limit, [&] { return r.finished; })) return;
  r.timed_out = true;
  r.stop = true;
  while (!r.finished) {
    for (pthread_t worker : r.running) pthread_kill(worker, SIGURG);
    r.workers_done.wait_for(lock, std::chrono::milliseconds(10), [&] { return r.finished; });
  }
}

// -------------------------------------------------------------- workers
void prepare_stacks(Worker& w, uint32_t n, std::size_t stack_bytes) {
  std::size_t need = static_cast<std::size_t>(n) * stack_bytes;
  if (w.stacks && w.stacks_bytes >= need) return;
  if (w.stacks) munmap(w.stacks, w.stacks_bytes);
  void* m = mmap(nullptr, need, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) throw std::runtime_error("metalsim: cannot map fiber stacks");
  w.stacks = static_cast<unsigned char*>(m);
  w.stacks_bytes = need;
  w.stack_bytes = stack_bytes;
  // A guard page at the bottom of each stack turns overflow into a crash, not corruption.
  for (uint32_t i = 0; i < n; ++i) mprotect(w.stacks + i * stack_bytes, 4096, PROT_NONE);
}

// The index of the thread (or threadgroup) that takes turn `turn` of `count`: reversed by Schedule::reversed, which
// reverses the SIMD groups and the lanes within each.
uint64_t in_turn(const Run& r, uint64_t turn, uint64_t count) {
  return r.opt.schedule == Schedule::reversed ? count - 1 - turn : turn;
}

void run_threadgroup(Worker& w, uint64_t k) {
  Run& r = *w.run;
  uint32_t tgp[3];
  r.tg_position(k, tgp);
  uint32_t dims[3];
  for (int d = 0; d < 3; ++d) dims[d] = std::min(r.tg[d], r.grid[d] - tgp[d] * r.tg[d]);
  const uint32_t n = dims[0] * dims[1] * dims[2];
  w.n = n;
  w.first_thread = static_cast<uint32_t>(k * r.nominal_threads());  // fits: run() checks the grid's thread count
  w.done = w.bar_arrived = w.epoch = w.bar_flags = w.device_epoch = 0;
  w.barrier_without_threadgroup_flag = false;
  w.bar_mismatch = false;
  w.abort = false;
  std::copy_n(tgp, 3, w.tg_pos);
  std::fill(w.shadow.begin(), w.shadow.begin() + std::min(w.shadow.size(), w.arena_used), Shadow{});
  w.arena_used = w.metal_bytes = 0;
  w.vars.clear();
  w.threads.resize(n);
  const uint32_t nsg = (n + kSimdWidth - 1) / kSimdWidth;
  w.sgs.resize(nsg);
  for (uint32_t s = 0; s < nsg; ++s) {
    SimdGroup& sg = w.sgs[s];
    sg.first = s * kSimdWidth;
    sg.size = std::min(kSimdWidth, n - sg.first);
    sg.done = sg.simd_wait = sg.tg_wait = sg.epoch = 0;
    if (sg.pool.empty()) sg.pool.resize(kSimdWidth + 1);
    sg.free.clear();
    for (auto& p : sg.pool) sg.free.push_back(&p);
  }
  for (uint32_t i = 0; i < n; ++i) {
    Thread& th = w.threads[i];
    th = Thread{};
    th.args = r.thread_args(tgp, i);
    th.sg = i / kSimdWidth;
    th.lane = i % kSimdWidth;
  }

  if (!w.fiber_mode) {
    w.stack_top = static_cast<unsigned char*>(__builtin_frame_address(0));
    for (uint32_t turn = 0; turn < n; ++turn) {
      Thread& th = w.threads[in_turn(r, turn, n)];
      w.cur = &th;
      if (setjmp(w.thread_exit) != 0) break;  // stopped by a fatal finding
      r.entry(r.bufs.data(), &th.args);
      check_pending_store(w, th);
    }
    w.cur = nullptr;
    return;
  }
  for (uint32_t i = 0; i < n; ++i) {
    unsigned char* top = w.stacks + (i + 1) * w.stack_bytes;
    w.threads[i].fiber = ctx::make_fcontext(top, w.stack_bytes - 4096, fiber_main);
  }
  for (;;) {
    bool progress = false;
    for (uint32_t turn = 0; turn < n; ++turn) {
      Thread& th = w.threads[in_turn(r, turn, n)];
      if (th.state != State::Runnable) continue;
      progress = true;
      w.cur = &th;
      ctx::transfer_t t = ctx::jump_fcontext(th.fiber, &th);
      th.fiber = t.fctx;
      if (w.abort || r.stop) break;
    }
    w.cur = nullptr;
    if (w.abort || r.stop || w.done == n) break;
    if (!progress) {
      std::ostringstream m;
      m << "deadlock in threadgroup " << u3(tgp) << ": no thread can proceed (" << w.bar_arrived
        << " at a threadgroup barrier, " << w.done << " finished, others at SIMD-group functions)";
      r.report(DiagnosticKind::Deadlock, u3(tgp), m.str(), nullptr, tgp, "", true);
      break;
    }
  }
}

void worker_main(Run& r, bool fiber_mode) {
  auto w = std::make_unique<Worker>();
  w->run = &r;
  w->fiber_mode = fiber_mode;
  t_worker = w.get();
  w->signal_stack.reset(new unsigned char[kSignalStackBytes]);
  stack_t signal_stack{w->signal_stack.get(), 0, kSignalStackBytes}, previous_stack{};
  sigaltstack(&signal_stack, &previous_stack);
  {
    std::lock_guard<std::mutex> lock(r.workers_mu);
    r.running.push_back(pthread_self());
  }
  if (fiber_mode) prepare_stacks(*w, r.tg[0] * r.tg[1] * r.tg[2], std::max<std::size_t>(r.opt.stack_bytes, 16384));
  const uint64_t total = static_cast<uint64_t>(r.ntg[0]) * r.ntg[1] * r.ntg[2];
  for (;;) {
    uint64_t turn = r.next_tg.fetch_add(1);
    if (turn >= total || r.stop) break;
    run_threadgroup(*w, in_turn(r, turn, total));
  }
  {
    std::lock_guard<std::mutex> lock(r.workers_mu);
    r.running.erase(std::find(r.running.begin(), r.running.end(), pthread_self()));
  }
  sigaltstack(&previous_stack, nullptr);
  r.live_workers--;
  t_worker = nullptr;
}

// Buffer storage with red zones on both sides (bounds checking).
struct Padded {
  std::unique_ptr<unsigned char[]> mem;
  unsigned char* data = nullptr;
  Padded(std::size_t bytes, const void* src) : mem(new unsigned char[bytes + 2 * kRedZone + 64]) {
    data = mem.get() + kRedZone + 64 - (reinterpret_cast<uintptr_t>(mem.get()) % 64);
    if (src && bytes) std::memcpy(data, src, bytes);
  }
};

// Same rounding as the shim's half (round to nearest even).
uint16_t float_to_half_bits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u, ax = x & 0x7fffffffu;
  if (ax >= 0x7f800000u) return static_cast<uint16_t>(sign | 0x7c00u | (ax > 0x7f800000u ? 0x200u : 0));
  if (ax >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);
  if (ax < 0x38800000u) {
    float r;
    std::memcpy(&r, &ax, 4);
    r += 0.5f;
    uint32_t u;
    std::memcpy(&u, &r, 4);
    return static_cast<uint16_t>(sign | (u - 0x3f000000u));
  }
  ax += 0xc8000fffu + ((ax >> 13) & 1u);
  return static_cast<uint16_t>(sign | (ax >> 13));
}

void fill_init(void* data, Dtype d, std::size_t count, float v) {
  for (std::size_t i = 0; i < count; ++i) {
    auto* p = static_cast<unsigned char*>(data) + i * dtype_size(d);
    switch (d) {
      case Dtype::float32: { float x = v; std::memcpy(p, &x, 4); break; }
      case Dtype::float16: { uint16_t h = float_to_half_bits(v); std::memcpy(p, &h, 2); break; }
      case Dtype::bfloat16: { uint32_t x; std::memcpy(&x, &v, 4); x += 0x7fffu + ((x >> 16) & 1u); uint16_t b = x >> 16; std::memcpy(p, &b, 2); break; }
      case Dtype::int32: { int32_t x = static_cast<int32_t>(v); std::memcpy(p, &x, 4); break; }
      case Dtype::uint32: { uint32_t x = static_cast<uint32_t>(v); std::memcpy(p, &x, 4); break; }
      case Dtype::int64: { int64_t x = static_cast<int64_t>(v); std::memcpy(p, &x, 8); break; }
      case Dtype::uint64: { uint64_t x = static_cast<uint64_t>(v); std::memcpy(p, &x, 8); break; }
      case Dtype::int16: { int16_t x = static_cast<int16_t>(v); std::memcpy(p, &x, 2); break; }
      case Dtype::uint16: { uint16_t x = static_cast<uint16_t>(v); std::memcpy(p, &x, 2); break; }
      case Dtype::int8: { int8_t x = static_cast<int8_t>(v); std::memcpy(p, &x, 1); break; }
      case Dtype::uint8: { uint8_t x = static_cast<uint8_t>(v); std::memcpy(p, &x, 1); break; }
      case Dtype::bool_: { uint8_t x = v != 0.0f; std::memcpy(p, &x, 1); break; }
    }
  }
}

// The loaded segments of the library dlopen gave handle h.
KernelImage image_of(void* h) {
  KernelImage image;
  link_map* map = nullptr;
  if (dlinfo(h, RTLD_DI_LINKMAP, &map) != 0 || !map) return image;
  struct Search {
    ElfW(Addr) base;
    KernelImage* image;
  } search{map->l_addr, &image};
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) {
        auto& s = *static_cast<Search*>(data);
        if (info->dlpi_addr != s.base) return 0;
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& ph = info->dlpi_phdr[i];
          if (ph.p_type != PT_LOAD) continue;
          const auto* lo = reinterpret_cast<const unsigned char*>(info->dlpi_addr + ph.p_vaddr);
          s.image->segments.push_back({lo, lo + ph.p_memsz});
          if (ph.p_flags & PF_X) s.image->code = s.image->segments.back();
        }
        return 1;
      },
      &search);
  return image;
}

// Metal's compiler gives every threadgroup variable a kernel declares memory of its own (none overlap), whether a thread
// reaches its declaration or not, and refuses a pipeline whose total exceeds 32 KiB; MLX's custom kernels get no
// dynamic threadgroup memory besides. Reported before the launch; the run goes on, for the kernel's other findings.
void check_declared_threadgroup_memory(Run& r, const std::vector<ms_tg_decl>& variables) {
  uint64_t total = 0;
  std::string list, crossing;  // crossing: the variable whose memory passes the limit
  for (const ms_tg_decl& v : variables) {
    total = (total + v.align - 1) / v.align * v.align + v.bytes;
    list += (list.empty() ? "'" : ", '") + std::string(v.name) + "' (" + std::to_string(v.bytes) + " B)";
    if (total > kTgLimit && crossing.empty()) crossing = v.name;
  }
  if (total <= kTgLimit) return;
  r.report(DiagnosticKind::ThreadgroupMemoryLimit, "limit",
           "threadgroup memory of " + std::to_string(total) + " bytes exceeds Metal's 32768-byte limit: the kernel "
               "declares " + list + ". Metal's compiler gives every threadgroup variable of a kernel its own memory, "
               "whether a thread reaches its declaration or not, so the pipeline cannot be created (declare one array "
               "and use it in every branch)",
           nullptr, nullptr, crossing, false);
}

struct Library {
  void* handle = nullptr;
  EntryFn entry = nullptr;
  const ms_kernel_info* info = nullptr;
  int* checking = nullptr;
  std::unique_ptr<LineTable> lines;
  KernelImage image;
  std::vector<ms_tg_decl> threadgroup_variables;  // every one the kernel declares, by id
  std::mutex run_mu;  // the .so's checking flag is global: one run at a time per library
};

Library* load_library(const std::filesystem::path& so, std::string& err) {
  static std::mutex mu;
  static std::map<std::string, std::unique_ptr<Library>> libs;
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = libs[so.string()];
  if (slot) return slot.get();
  void* h = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    err = dlerror();
    libs.erase(so.string());
    return nullptr;
  }
  auto lib = std::make_unique<Library>();
  lib->handle = h;
  lib->entry = reinterpret_cast<EntryFn>(dlsym(h, "metalsim_entry"));
  lib->info = static_cast<const ms_kernel_info*>(dlsym(h, "metalsim_info"));
  auto** rt = static_cast<const ms_runtime**>(dlsym(h, "metalsim_rt"));
  lib->checking = static_cast<int*>(dlsym(h, "metalsim_checking"));
  using DeclsFn = const ms_tg_decl* (*)(uint32_t*);
  const auto declarations = reinterpret_cast<DeclsFn>(dlsym(h, "metalsim_tg_decls"));
  if (!lib->entry || !lib->info || !rt || !lib->checking || !declarations ||
      lib->info->abi_version != METALSIM_ABI_VERSION) {
    err = "not a metalsim kernel library (or ABI mismatch): " + so.string();
    dlclose(h);
    libs.erase(so.string());
    return nullptr;
  }
  *rt = &kRuntime;
  uint32_t count = 0;
  const ms_tg_decl* first = declarations(&count);
  for (const ms_tg_decl& d : std::span(first, count))
    if (d.id != 0) lib->threadgroup_variables.push_back(d);  // id 0: the section's empty entry
  std::sort(lib->threadgroup_variables.begin(), lib->threadgroup_variables.end(),
            [](const ms_tg_decl& a, const ms_tg_decl& b) { return a.id < b.id; });
  lib->lines = std::make_unique<LineTable>(so, h);
  lib->image = image_of(h);
  slot = std::move(lib);
  return slot.get();
}

}  // namespace

std::string preload(const std::filesystem::path& so_path) {
  install_signal_handlers();
  std::string err;
  load_library(so_path, err);
  return err;
}

RunResult run(const std::filesystem::path& so_path, const KernelSpec& spec, std::span<Buffer> inputs,
              std::span<Buffer> outputs, const RunOptions& options) {
  auto t0 = std::chrono::steady_clock::now();
  RunResult res;
  Run r;
  r.opt = options;
  auto finish = [&]() {
    res.diagnostics = std::move(r.diags);
    res.ok = res.diagnostics.empty();
    res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return res;
  };
  auto invalid = [&](const std::string& msg) {
    r.report(DiagnosticKind::InvalidLaunch, msg, msg, nullptr, nullptr, "", true);
    return finish();
  };

  // Launch geometry, as MLX: the threadgroup is clamped to the grid.
  for (int d = 0; d < 3; ++d) {
    if (spec.grid[d] <= 0 || spec.threadgroup[d] <= 0) {
      auto sizes = [](const auto& v) {
        return "(" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + ", " + std::to_string(v[2]) + ")";
      };
      const bool empty_grid = std::any_of(spec.grid.begin(), spec.grid.end(), [](auto n) { return n == 0; });
      return invalid("grid " + sizes(spec.grid) + " and threadgroup " + sizes(spec.threadgroup) + ": every size must be positive" +
                     (empty_grid ? " (a grid made from an empty input's size is 0: skip the launch for empty inputs)" : ""));
    }
    r.grid[d] = static_cast<uint32_t>(spec.grid[d]);
    r.tg[d] = std::min(static_cast<uint32_t>(spec.threadgroup[d]), r.grid[d]);
    r.ntg[d] = (r.grid[d] + r.tg[d] - 1) / r.tg[d];
  }
  const uint64_t tg_threads = static_cast<uint64_t>(spec.threadgroup[0]) * spec.threadgroup[1] * spec.threadgroup[2];
  if (tg_threads > 1024) {
    std::string m = "threadgroup of " + std::to_string(tg_threads) + " threads (" + std::to_string(spec.threadgroup[0]) +
                    "x" + std::to_string(spec.threadgroup[1]) + "x" + std::to_string(spec.threadgroup[2]) +
                    ") exceeds Metal's maximum of 1024 threads per threadgroup";
    r.report(DiagnosticKind::ThreadgroupTooLarge, "tg", m, nullptr, nullptr, "", true);
    return finish();
  }

  // Buffers must match the spec.
  if (inputs.size() != spec.inputs.size() || outputs.size() != spec.outputs.size())
    return invalid("expected " + std::to_string(spec.inputs.size()) + " inputs and " +
                   std::to_string(spec.outputs.size()) + " outputs");
  auto check = [&](const Buffer& b, const TensorSpec& t) -> std::string {
    const std::size_t n = memory_elements(t);
    if (b.dtype != t.dtype) return "buffer '" + t.name + "' has dtype " + std::string(dtype_name(b.dtype)) + ", spec says " + std::string(dtype_name(t.dtype));
    if (b.shape != t.shape) return "buffer '" + t.name + "' has a shape different from the spec";
    if (b.bytes != n * dtype_size(t.dtype) || (!b.data && b.bytes)) return "buffer '" + t.name + "' has " + std::to_string(b.bytes) + " bytes, expected " + std::to_string(n * dtype_size(t.dtype));
    return "";
  };
  for (std::size_t i = 0; i < inputs.size(); ++i)
    if (auto e = check(inputs[i], spec.inputs[i]); !e.empty()) return invalid(e);
  for (std::size_t i = 0; i < outputs.size(); ++i)
    if (auto e = check(outputs[i], spec.outputs[i]); !e.empty()) return invalid(e);

  std::string err;
  Library* lib = load_library(so_path, err);
  if (!lib) return invalid("cannot load kernel library: " + err);
  std::lock_guard<std::mutex> lib_lock(lib->run_mu);
  r.entry = lib->entry;
  r.lines = lib->lines.get();
  r.image = &lib->image;
  install_signal_handlers();
  check_declared_threadgroup_memory(r, lib->threadgroup_variables);

  // Buffer table in MLX's buffer-index order.
  std::vector<std::unique_ptr<Padded>> owned;
  std::vector<std::vector<int32_t>> shapes;
  std::vector<std::vector<int64_t>> strides;
  std::vector<int32_t> ndims(spec.inputs.size());
  const bool padded = options.check_bounds;
  // Device races need every thread's global id below kForeignReader (far beyond what the emulator can run).
  const uint64_t grid_threads = static_cast<uint64_t>(r.ntg[0]) * r.ntg[1] * r.ntg[2] * r.nominal_threads();
  const bool device_races = options.check_races && grid_threads < kForeignReader;
  auto add = [&](const std::string& name, void* data, std::size_t bytes, std::size_t elem, bool input,
                 int space) -> void* {
    auto* p = static_cast<unsigned char*>(data);
    if (padded) {
      owned.push_back(std::make_unique<Padded>(bytes, data));
      p = owned.back()->data;
    }
    r.buffer_spaces.push_back({p, p + bytes, space});
    if (padded || device_races)
      r.device.push_back({name, p, p + bytes, elem,
                          device_races && bytes ? std::make_unique<DeviceShadow>((bytes + elem - 1) / elem) : nullptr,
                          padded && input ? data : nullptr});
    return p;
  };
  shapes.reserve(spec.inputs.size());
  strides.reserve(spec.inputs.size());
  for (std::size_t i = 0; i < spec.inputs.size(); ++i) {
    const auto& t = spec.inputs[i];
    r.bufs.push_back(add(t.name, inputs[i].data, inputs[i].bytes, dtype_size(t.dtype), true,
                         in_constant_space(t) ? METALSIM_SPACE_CONSTANT : METALSIM_SPACE_DEVICE));
    if (t.shape.empty()) continue;
    auto& sh = shapes.emplace_back(t.shape.begin(), t.shape.end());
    auto& st = strides.emplace_back(t.strides);
    if (st.empty()) {
      st.resize(t.shape.size());
      int64_t s = 1;
      for (std::size_t d = t.shape.size(); d-- > 0;) st[d] = s, s *= t.shape[d];
    }
    ndims[i] = static_cast<int32_t>(t.shape.size());
    if (spec.source.find(t.name + "_shape") != std::string::npos)
      r.bufs.push_back(add(t.name + "_shape", sh.data(), sh.size() * 4, 4, true, METALSIM_SPACE_CONSTANT));
    if (spec.source.find(t.name + "_strides") != std::string::npos)
      r.bufs.push_back(add(t.name + "_strides", st.data(), st.size() * 8, 8, true, METALSIM_SPACE_CONSTANT));
    if (spec.source.find(t.name + "_ndim") != std::string::npos)
      r.bufs.push_back(add(t.name + "_ndim", &ndims[i], 4, 4, true, METALSIM_SPACE_CONSTANT));
  }
  for (std::size_t i = 0; i < spec.outputs.size(); ++i) {
    const auto& t = spec.outputs[i];
    if (spec.init_value) fill_init(outputs[i].data, t.dtype, outputs[i].bytes / dtype_size(t.dtype), *spec.init_value);
    r.bufs.push_back(add(t.name, outputs[i].data, outputs[i].bytes, dtype_size(t.dtype), false, METALSIM_SPACE_DEVICE));
  }
  if (r.bufs.size() != lib->info->num_buffers)
    return invalid("kernel library expects " + std::to_string(lib->info->num_buffers) + " buffers, spec gives " +
                   std::to_string(r.bufs.size()) + " (spec and .so differ?)");

  // The hooks also give Schedule::atomic_lockstep its turns at atomic operations.
  *lib->checking = (options.check_bounds || options.check_races || options.check_uninitialized ||
                    options.schedule == Schedule::atomic_lockstep)
                       ? 1
                       : 0;
  unsigned nw = options.workers ? options.workers : std::max(1u, std::thread::hardware_concurrency());
  const uint64_t total = static_cast<uint64_t>(r.ntg[0]) * r.ntg[1] * r.ntg[2];
  nw = static_cast<unsigned>(std::min<uint64_t>(nw, total));
  const bool fibers = lib->info->uses_sync != 0;
  std::vector<std::thread> pool;
  r.live_workers = nw;  // before any starts: a spinning worker compares against it
  std::thread watchdog;
  try {
    if (options.timeout_seconds > 0) watchdog = std::thread([&] { watch_time(r); });
  } catch (const std::system_error&) {
    // No thread to be had (a sandbox): the run goes without a time limit.
  }
  for (unsigned i = 1; i < nw; ++i) pool.emplace_back([&] { worker_main(r, fibers); });
  worker_main(r, fibers);
  for (auto& t : pool) t.join();
  if (watchdog.joinable()) {
    {
      std::lock_guard<std::mutex> lock(r.workers_mu);
      r.finished = true;
    }
    r.workers_done.notify_all();
    watchdog.join();
  }

  if (padded) {
    // A write the hooks did not see (an exchange, a copy by an uninstrumented routine) still left its mark on the copy.
    for (const auto& b : r.device) {
      if (!b.input) continue;
      const auto* original = static_cast<const unsigned char*>(b.input);
      const auto [copy_at, original_at] = std::mismatch(b.lo, b.hi, original);
      const bool reported = std::any_of(r.diags.begin(), r.diags.end(), [&](const Diagnostic& d) {
        return d.kind == DiagnosticKind::InputWrite && d.buffer == b.name;
      });
      if (copy_at != b.hi && !reported) report_input_write(r, b, copy_at, nullptr, nullptr);
    }
    std::size_t k = r.device.size() - spec.outputs.size();
    for (std::size_t i = 0; i < spec.outputs.size(); ++i)
      if (outputs[i].bytes) std::memcpy(outputs[i].data, r.device[k + i].lo, outputs[i].bytes);
  }
  return finish();
}

std::vector<Buffer> output_buffers(const KernelSpec& spec, std::vector<std::vector<std::byte>>& storage) {
  std::vector<Buffer> outputs;
  for (std::size_t o = 0; o < spec.outputs.size(); ++o) {
    const TensorSpec& t = spec.outputs[o];
    outputs.push_back({t.name, t.dtype, t.shape, storage[o].data(), storage[o].size()});
  }
  return outputs;
}

bool undefined_reads_matter(const std::filesystem::path& so_path, const KernelSpec& spec, std::span<Buffer> inputs,
                            const std::vector<std::vector<std::byte>>& first_outputs, const RunResult& first,
                            RunOptions options) {
  const auto found_before = [&](const Diagnostic& d) {
    return std::any_of(first.diagnostics.begin(), first.diagnostics.end(),
                       [&](const Diagnostic& f) { return f.kind == d.kind; });
  };
  std::vector<std::vector<std::byte>> results[2];
  const unsigned char fills[2] = {0xFF, 0x00};
  for (int i = 0; i < 2; ++i) {
    results[i] = first_outputs;
    std::vector<Buffer> outputs = output_buffers(spec, results[i]);
    options.undefined_fill = fills[i];
    const RunResult ran = run(so_path, spec, inputs, outputs, options);
    if (!std::all_of(ran.diagnostics.begin(), ran.diagnostics.end(), found_before)) return true;
  }
  return results[0] != results[1];
}

}  // namespace ksearch::metalsim
