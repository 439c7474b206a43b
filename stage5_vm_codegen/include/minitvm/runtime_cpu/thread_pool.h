/*!
 * \file minitvm/runtime_cpu/thread_pool.h
 * \brief The CPU thread pool that runs parallel loops of generated code (stage 5).
 *
 * One pool per process. Its size comes from the environment variable `MINITVM_NUM_THREADS`
 * (default: every core the process may run on) and can be changed between launches with
 * `SetNumThreads` (the global "runtime.cpu.SetNumThreads"), which benchmarks use to measure 1
 * and 2 threads in the same process. The calling thread runs tasks itself; a launch from
 * inside a task runs its tasks serially on that thread (no nested parallelism). Thread i first
 * runs its own share of the tasks, [i*n/T, (i+1)*n/T) of n on T threads, then takes the tasks
 * the others have not started yet. Waits spin for a bounded time, then yield, then sleep.
 * "runtime.cpu.PoolTrace" / "runtime.cpu.PoolTraceDump" record each launch's tasks per thread
 * and their wall and thread-CPU time.
 */
#ifndef MINITVM_RUNTIME_CPU_THREAD_POOL_H_
#define MINITVM_RUNTIME_CPU_THREAD_POOL_H_

#include <cstdint>
#include <functional>

namespace minitvm {
namespace runtime_cpu {

/*! \brief The process-wide pool of worker threads. */
class ThreadPool {
 public:
  /*! \brief The pool (created on first use). */
  static ThreadPool* Global();
  /*! \brief Threads a launch uses (the caller included). */
  int num_threads() const;
  /*! \brief Resize the pool; n <= 0 restores the default. Not while a launch runs. */
  void SetNumThreads(int n);
  /*!
   * \brief Run `task(t, n)` for t in [0, n) and wait; `num_task` <= 0 means num_threads().
   * Returns the first non-zero task result, else 0.
   */
  int Launch(const std::function<int(int task_id, int num_task)>& task, int num_task);
  /*!
   * \brief The task count of a launch of generated code that leaves it to the runtime
   * (MTVMBackendParallelLaunch with 0): 1 on one thread, else num_threads() times the tasks
   * per thread (default 4, MINITVM_TASKS_PER_THREAD). More tasks than threads let a thread
   * that is free take the work of one that started late or was preempted.
   */
  int DefaultTaskCount() const;
  /*! \brief Set the tasks per thread of DefaultTaskCount (k <= 0 restores the default). */
  void SetTasksPerThread(int k);
  /*! \brief The default size: MINITVM_NUM_THREADS, else the usable cores. */
  static int DefaultNumThreads();

  ~ThreadPool();

 private:
  ThreadPool();
  struct Impl;
  Impl* impl_;
};

}  // namespace runtime_cpu
}  // namespace minitvm

#endif  // MINITVM_RUNTIME_CPU_THREAD_POOL_H_
