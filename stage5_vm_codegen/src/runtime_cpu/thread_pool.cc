/*!
 * \file thread_pool.cc
 * \brief The CPU thread pool (stage 5): persistent workers that spin briefly, then sleep on a
 * condition variable; each launch is a job object with its own task counter, so a worker that
 * wakes late can never run a task of the next launch.
 */
#include "minitvm/runtime_cpu/thread_pool.h"

#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "minitvm/runtime/registry.h"

namespace minitvm {
namespace runtime_cpu {
namespace {

/*! \brief True on a thread that is running a task (nested launches then run serially). */
thread_local bool tls_in_task = false;
/*! \brief The pool's index of this thread: 0 for callers, 1..n-1 for the workers. */
thread_local int tls_thread_index = 0;

/*! \brief Threads whose busy time a trace keeps apart (higher indices share the last slot). */
constexpr int kTraceSlots = 8;

/*!
 * \brief The spin budgets in ns (SpinWait): the caller's join (pause, total) and an idle
 * worker's wait for the next launch (pause, total). "runtime.cpu.SetSpinWait" changes them for
 * measurements (bench/conv2d_bench.py --policy old).
 */
std::atomic<int64_t> g_spin_ns[4] = {20000, 200000, 50000, 300000};

/*!
 * \brief Forks of this process so far, counted in the child by a pthread_atfork handler: a
 * launch compares it with the pool's count (one relaxed load) to learn that it runs in a forked
 * child whose workers are gone. A getpid() per launch (a system call since glibc 2.25) cost
 * 0.14 us, 2% of a batch-1 MLP call.
 */
std::atomic<uint64_t> g_forks{0};

void CountFork() { g_forks.fetch_add(1, std::memory_order_relaxed); }

uint64_t ForkCount() {
  static const int registered = pthread_atfork(nullptr, nullptr, CountFork);
  (void)registered;
  return g_forks.load(std::memory_order_relaxed);
}

/*! \brief Whether launches are traced ("runtime.cpu.PoolTrace"); off: one relaxed load. */
std::atomic<bool> g_trace{false};

/*! \brief CPU time of the calling thread (what a task costs, preemption by other load excluded). */
int64_t ThreadCpuNs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

/*!
 * \brief Wait for `done()` by spinning: PAUSE for `pause_ns`, then sched_yield() until
 * `total_ns` (which lets a preempted thread of this process, or anyone else, have the core
 * instead of burning it), and false when that passed too (the caller then sleeps). The budget
 * is time, not iterations: a PAUSE takes ~25 ns on Zen 4 but ~140 cycles on Skylake-X and 10
 * on older cores, so a fixed count (200000 here before: 5 ms on Zen 4) means nothing.
 */
template <typename Done>
bool SpinWait(const Done& done, int64_t pause_ns, int64_t total_ns) {
  const int64_t start = NowNs();
  while (true) {
    for (int i = 0; i < 32; ++i) {
      if (done()) return true;
      CpuRelax();
    }
    int64_t waited = NowNs() - start;
    if (waited >= total_ns) return done();
    if (waited >= pause_ns) sched_yield();
  }
}

/*! \brief The tasks [next, end) one thread takes first; a cache line of its own. */
struct alignas(64) TaskRange {
  std::atomic<int> next{0};
  int end = 0;
};

/*!
 * \brief One launch: the task, its counters and its first error. Thread i first runs the
 * tasks of range i, [i*n/T, (i+1)*n/T) for n tasks on T threads, in order (so with one task per
 * thread it always gets the same part of the loop, and its cache keeps what that part read in
 * the last call); then it takes the tasks left in the other ranges, so a thread that started
 * late or was preempted holds up the join by one task at most.
 */
struct Job {
  const std::function<int(int, int)>* task = nullptr;
  int num_task = 0;
  int num_ranges = 0;
  std::unique_ptr<TaskRange[]> ranges;
  std::atomic<int> pending{0};
  std::atomic<int> result{0};
  // Tracing only: the launch's start, and per thread the ns spent in tasks, the tasks run and
  // the delay from the launch to its first task (-1: none).
  bool trace = false;
  int64_t start_ns = 0;
  std::atomic<int64_t> busy_ns[kTraceSlots] = {};
  std::atomic<int64_t> cpu_ns[kTraceSlots] = {};
  std::atomic<int> tasks_run[kTraceSlots] = {};
  std::atomic<int64_t> first_ns[kTraceSlots] = {};
};

/*! \brief One traced launch. */
struct TraceRecord {
  int num_task = 0;
  int num_threads = 0;
  int64_t wall_ns = 0;
  int64_t busy_ns[kTraceSlots] = {};
  int64_t cpu_ns[kTraceSlots] = {};
  int tasks_run[kTraceSlots] = {};
  int64_t first_ns[kTraceSlots] = {};
};

std::mutex g_trace_mu;
std::vector<TraceRecord>* g_trace_records = new std::vector<TraceRecord>();

/*! \brief Run tasks of `job` until none is left; true when this thread finished the last one. */
bool RunTasks(Job* job) {
  int done = 0;
  bool saved = tls_in_task;
  tls_in_task = true;
  const int slot = std::min(tls_thread_index, kTraceSlots - 1);
  for (int i = 0; i < job->num_ranges; ++i) {
    TaskRange& range = job->ranges[(tls_thread_index + i) % job->num_ranges];
    while (true) {
      if (range.next.load(std::memory_order_relaxed) >= range.end) break;
      int t = range.next.fetch_add(1, std::memory_order_relaxed);
      if (t >= range.end) break;
      int64_t t0 = job->trace ? NowNs() : 0;
      int64_t c0 = job->trace ? ThreadCpuNs() : 0;
      int r = (*job->task)(t, job->num_task);
      if (job->trace) {
        int64_t t1 = NowNs();
        job->cpu_ns[slot].fetch_add(ThreadCpuNs() - c0, std::memory_order_relaxed);
        job->busy_ns[slot].fetch_add(t1 - t0, std::memory_order_relaxed);
        if (job->tasks_run[slot].fetch_add(1, std::memory_order_relaxed) == 0) {
          job->first_ns[slot].store(t0 - job->start_ns, std::memory_order_relaxed);
        }
      }
      if (r != 0) {
        int expected = 0;
        job->result.compare_exchange_strong(expected, r);
      }
      ++done;
    }
  }
  tls_in_task = saved;
  // One decrement per thread, not per task: the range counters are all the tasks contend for.
  return done > 0 && job->pending.fetch_sub(done, std::memory_order_acq_rel) == done;
}

}  // namespace

struct ThreadPool::Impl {
  std::mutex mu;
  std::condition_variable cv_work;
  std::condition_variable cv_done;
  std::mutex launch_mu;  // one launch at a time
  // Heap-allocated so that, after fork(), the parent's threads (which do not exist in the
  // child) can be abandoned without destroying joinable std::thread objects.
  std::vector<std::thread>* workers = new std::vector<std::thread>();
  uint64_t forks_seen = ForkCount();
  std::shared_ptr<Job> job;
  std::atomic<uint64_t> generation{0};
  bool stop = false;
  int num_threads = 1;
  std::atomic<int> tasks_per_thread{DefaultTasksPerThread()};

  static int DefaultTasksPerThread() {
    if (const char* env = std::getenv("MINITVM_TASKS_PER_THREAD")) {
      int k = std::atoi(env);
      if (k > 0) return k;
    }
    return 4;
  }

  void WorkerLoop(uint64_t seen) {
    while (true) {
      // Spin a little: parallel loops come in quick succession (a network's kernels are a few
      // microseconds apart); 0.3 ms, the last 0.25 of it yielding the core.
      SpinWait([&] { return generation.load(std::memory_order_acquire) != seen; },
               g_spin_ns[2].load(std::memory_order_relaxed),
               g_spin_ns[3].load(std::memory_order_relaxed));
      std::shared_ptr<Job> my_job;
      {
        std::unique_lock<std::mutex> lock(mu);
        cv_work.wait(lock, [&] { return stop || generation.load() != seen; });
        if (stop) return;
        seen = generation.load();
        my_job = job;
      }
      if (my_job && RunTasks(my_job.get())) {
        std::lock_guard<std::mutex> lock(mu);
        cv_done.notify_all();
      }
    }
  }

  void Start(int n) {
    num_threads = n;
    stop = false;
    forks_seen = ForkCount();
    // The generation is read here, not in the new thread: a thread that starts after the
    // first launch of the new size would otherwise take that launch for an old one and sleep
    // through it (its tasks then all fall to the caller).
    const uint64_t seen = generation.load(std::memory_order_acquire);
    for (int i = 1; i < n; ++i) {
      workers->emplace_back([this, i, seen] {
        tls_thread_index = i;
        WorkerLoop(seen);
      });
    }
  }
  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mu);
      stop = true;
    }
    cv_work.notify_all();
    for (auto& t : *workers) t.join();
    workers->clear();
  }
  /*! \brief In a forked child the workers are gone: abandon them and start new ones. */
  void RestartAfterFork() {
    if (forks_seen == ForkCount()) return;
    workers = new std::vector<std::thread>();  // the parent's list is leaked on purpose
    new (&mu) std::mutex();
    new (&launch_mu) std::mutex();
    new (&cv_work) std::condition_variable();
    new (&cv_done) std::condition_variable();
    job.reset();
    Start(num_threads);
  }
};

int ThreadPool::DefaultNumThreads() {
  if (const char* env = std::getenv("MINITVM_NUM_THREADS")) {
    int n = std::atoi(env);
    if (n > 0) return n;
  }
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    int n = CPU_COUNT(&set);
    if (n > 0) return n;
  }
  unsigned n = std::thread::hardware_concurrency();
  return n > 0 ? static_cast<int>(n) : 1;
}

ThreadPool::ThreadPool() : impl_(new Impl()) { impl_->Start(DefaultNumThreads()); }

ThreadPool::~ThreadPool() {
  impl_->Stop();
  delete impl_->workers;
  delete impl_;
}

ThreadPool* ThreadPool::Global() {
  // Never destroyed: generated code may still run during static destruction.
  static ThreadPool* pool = new ThreadPool();
  return pool;
}

int ThreadPool::num_threads() const { return impl_->num_threads; }

int ThreadPool::DefaultTaskCount() const {
  int n = impl_->num_threads;
  return n <= 1 ? 1 : n * impl_->tasks_per_thread.load(std::memory_order_relaxed);
}

void ThreadPool::SetTasksPerThread(int k) {
  impl_->tasks_per_thread.store(k > 0 ? k : Impl::DefaultTasksPerThread());
}

void ThreadPool::SetNumThreads(int n) {
  if (n <= 0) n = DefaultNumThreads();
  impl_->RestartAfterFork();
  std::lock_guard<std::mutex> launch_lock(impl_->launch_mu);
  if (n == impl_->num_threads) return;
  impl_->Stop();
  impl_->Start(n);
}

int ThreadPool::Launch(const std::function<int(int, int)>& task, int num_task) {
  impl_->RestartAfterFork();
  if (num_task <= 0) num_task = num_threads();
  const bool trace = g_trace.load(std::memory_order_relaxed) && !tls_in_task;
  // Serial cases: nested launch, one thread or one task.
  if (tls_in_task || num_threads() == 1 || num_task == 1) {
    int64_t t0 = trace ? NowNs() : 0;
    int64_t c0 = trace ? ThreadCpuNs() : 0;
    bool saved = tls_in_task;
    tls_in_task = true;
    int result = 0;
    for (int t = 0; t < num_task; ++t) {
      int r = task(t, num_task);
      if (r != 0 && result == 0) result = r;
    }
    tls_in_task = saved;
    if (trace) {
      TraceRecord rec;
      rec.num_task = num_task;
      rec.num_threads = 1;
      rec.wall_ns = NowNs() - t0;
      rec.busy_ns[0] = rec.wall_ns;
      rec.cpu_ns[0] = ThreadCpuNs() - c0;
      rec.tasks_run[0] = num_task;
      std::lock_guard<std::mutex> lock(g_trace_mu);
      g_trace_records->push_back(rec);
    }
    return result;
  }
  std::lock_guard<std::mutex> launch_lock(impl_->launch_mu);
  auto job = std::make_shared<Job>();
  job->task = &task;
  job->num_task = num_task;
  job->num_ranges = std::min(num_threads(), num_task);
  job->ranges.reset(new TaskRange[job->num_ranges]);
  for (int i = 0; i < job->num_ranges; ++i) {
    job->ranges[i].next.store(static_cast<int>(int64_t{i} * num_task / job->num_ranges));
    job->ranges[i].end = static_cast<int>(int64_t{i + 1} * num_task / job->num_ranges);
  }
  job->pending.store(num_task);
  job->trace = trace;
  if (trace) {
    job->start_ns = NowNs();
    for (auto& f : job->first_ns) f.store(-1, std::memory_order_relaxed);
  }
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    impl_->job = job;
    impl_->generation.fetch_add(1, std::memory_order_acq_rel);
  }
  impl_->cv_work.notify_all();
  RunTasks(job.get());
  // Wait for the workers' tasks: spin first, then sleep. With several tasks per thread the
  // wait is at most one task when the workers run; a longer one means a worker is preempted,
  // and spinning on would only keep a core from it (or from someone else).
  SpinWait([&] { return job->pending.load(std::memory_order_acquire) == 0; },
           g_spin_ns[0].load(std::memory_order_relaxed),
           g_spin_ns[1].load(std::memory_order_relaxed));
  if (job->pending.load(std::memory_order_acquire) != 0) {
    std::unique_lock<std::mutex> lock(impl_->mu);
    impl_->cv_done.wait(lock, [&] { return job->pending.load() == 0; });
  }
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    impl_->job.reset();
  }
  if (trace) {
    TraceRecord rec;
    rec.num_task = num_task;
    rec.num_threads = num_threads();
    rec.wall_ns = NowNs() - job->start_ns;
    for (int i = 0; i < kTraceSlots; ++i) {
      rec.busy_ns[i] = job->busy_ns[i].load(std::memory_order_relaxed);
      rec.cpu_ns[i] = job->cpu_ns[i].load(std::memory_order_relaxed);
      rec.tasks_run[i] = job->tasks_run[i].load(std::memory_order_relaxed);
      rec.first_ns[i] = job->first_ns[i].load(std::memory_order_relaxed);
    }
    std::lock_guard<std::mutex> lock(g_trace_mu);
    g_trace_records->push_back(rec);
  }
  return job->result.load();
}

MINITVM_REGISTER_GLOBAL("runtime.cpu.NumThreads").set_body_typed([]() {
  return ThreadPool::Global()->num_threads();
});
MINITVM_REGISTER_GLOBAL("runtime.cpu.SetTasksPerThread").set_body_typed([](int k) {
  ThreadPool::Global()->SetTasksPerThread(k);
});
MINITVM_REGISTER_GLOBAL("runtime.cpu.DefaultTaskCount").set_body_typed([]() {
  return ThreadPool::Global()->DefaultTaskCount();
});
MINITVM_REGISTER_GLOBAL("runtime.cpu.SetSpinWait")
    .set_body_typed([](int64_t join_pause_ns, int64_t join_total_ns, int64_t idle_pause_ns,
                       int64_t idle_total_ns) {
      // Negative values restore the defaults.
      const int64_t defaults[4] = {20000, 200000, 50000, 300000};
      const int64_t v[4] = {join_pause_ns, join_total_ns, idle_pause_ns, idle_total_ns};
      for (int i = 0; i < 4; ++i) g_spin_ns[i].store(v[i] < 0 ? defaults[i] : v[i]);
    });
MINITVM_REGISTER_GLOBAL("runtime.cpu.PoolTrace").set_body_typed([](bool enable) {
  // Starting a trace drops the records of the last one; stopping keeps them for the dump.
  std::lock_guard<std::mutex> lock(g_trace_mu);
  if (enable) g_trace_records->clear();
  g_trace.store(enable, std::memory_order_relaxed);
});
MINITVM_REGISTER_GLOBAL("runtime.cpu.PoolTraceDump").set_body_typed([]() {
  // One line per launch since PoolTrace(true): "num_task num_threads wall_ns", then per thread
  // slot that ran a task "slot:tasks:busy_ns:cpu_ns:first_ns" (busy: wall time in its tasks,
  // cpu: thread CPU time in them, first: from the launch to its first task).
  std::ostringstream os;
  std::lock_guard<std::mutex> lock(g_trace_mu);
  for (const TraceRecord& r : *g_trace_records) {
    os << r.num_task << " " << r.num_threads << " " << r.wall_ns;
    for (int i = 0; i < kTraceSlots; ++i) {
      if (r.tasks_run[i] > 0) {
        os << " " << i << ":" << r.tasks_run[i] << ":" << r.busy_ns[i] << ":" << r.cpu_ns[i] << ":"
           << r.first_ns[i];
      }
    }
    os << "\n";
  }
  return std::string(os.str());
});
MINITVM_REGISTER_GLOBAL("runtime.cpu.SetNumThreads").set_body_typed([](int n) {
  ThreadPool::Global()->SetNumThreads(n);
});

}  // namespace runtime_cpu
}  // namespace minitvm
