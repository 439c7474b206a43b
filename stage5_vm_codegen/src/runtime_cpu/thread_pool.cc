/*!
 * \file thread_pool.cc
 * \brief The CPU thread pool (stage 5): persistent workers that spin briefly, then sleep on a
 * condition variable; each launch is a job object with its own task counter, so a worker that
 * wakes late can never run a task of the next launch.
 */
#include "minitvm/runtime_cpu/thread_pool.h"

#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "minitvm/runtime/registry.h"

namespace minitvm {
namespace runtime_cpu {
namespace {

/*! \brief True on a thread that is running a task (nested launches then run serially). */
thread_local bool tls_in_task = false;

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

/*! \brief One launch: the task, its counters and its first error. */
struct Job {
  const std::function<int(int, int)>* task = nullptr;
  int num_task = 0;
  std::atomic<int> next{0};
  std::atomic<int> pending{0};
  std::atomic<int> result{0};
};

/*! \brief Run tasks of `job` until none is left; true when this thread finished the last one. */
bool RunTasks(Job* job) {
  bool finished_last = false;
  bool saved = tls_in_task;
  tls_in_task = true;
  while (true) {
    int t = job->next.fetch_add(1, std::memory_order_relaxed);
    if (t >= job->num_task) break;
    int r = (*job->task)(t, job->num_task);
    if (r != 0) {
      int expected = 0;
      job->result.compare_exchange_strong(expected, r);
    }
    if (job->pending.fetch_sub(1, std::memory_order_acq_rel) == 1) finished_last = true;
  }
  tls_in_task = saved;
  return finished_last;
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
  pid_t owner_pid = getpid();
  std::shared_ptr<Job> job;
  std::atomic<uint64_t> generation{0};
  bool stop = false;
  int num_threads = 1;

  void WorkerLoop() {
    uint64_t seen = generation.load(std::memory_order_acquire);
    while (true) {
      // Spin a little: parallel loops often come in quick succession.
      for (int i = 0; i < 20000 && generation.load(std::memory_order_acquire) == seen; ++i) {
        CpuRelax();
      }
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
    owner_pid = getpid();
    for (int i = 1; i < n; ++i) workers->emplace_back([this] { WorkerLoop(); });
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
    if (owner_pid == getpid()) return;
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
  // Serial cases: nested launch, one thread or one task.
  if (tls_in_task || num_threads() == 1 || num_task == 1) {
    bool saved = tls_in_task;
    tls_in_task = true;
    int result = 0;
    for (int t = 0; t < num_task; ++t) {
      int r = task(t, num_task);
      if (r != 0 && result == 0) result = r;
    }
    tls_in_task = saved;
    return result;
  }
  std::lock_guard<std::mutex> launch_lock(impl_->launch_mu);
  auto job = std::make_shared<Job>();
  job->task = &task;
  job->num_task = num_task;
  job->pending.store(num_task);
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    impl_->job = job;
    impl_->generation.fetch_add(1, std::memory_order_acq_rel);
  }
  impl_->cv_work.notify_all();
  RunTasks(job.get());
  // Wait for the workers' tasks: spin first, then sleep.
  for (int i = 0; i < 200000 && job->pending.load(std::memory_order_acquire) != 0; ++i) {
    CpuRelax();
  }
  if (job->pending.load(std::memory_order_acquire) != 0) {
    std::unique_lock<std::mutex> lock(impl_->mu);
    impl_->cv_done.wait(lock, [&] { return job->pending.load() == 0; });
  }
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    impl_->job.reset();
  }
  return job->result.load();
}

MINITVM_REGISTER_GLOBAL("runtime.cpu.NumThreads").set_body_typed([]() {
  return ThreadPool::Global()->num_threads();
});
MINITVM_REGISTER_GLOBAL("runtime.cpu.SetNumThreads").set_body_typed([](int n) {
  ThreadPool::Global()->SetNumThreads(n);
});

}  // namespace runtime_cpu
}  // namespace minitvm
