/*!
 * \file thread_pool_test.cc
 * \brief Stage 5: the CPU thread pool's task hand-out — every task runs once for any task and
 * thread count, idle threads take over the tasks of a busy one, the runtime's default task
 * count, and the launch trace.
 */
#include "minitvm/runtime_cpu/thread_pool.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "minitvm/runtime/registry.h"
#include "minitvm/runtime_cpu/backend_api.h"

namespace minitvm {
namespace {

using runtime_cpu::ThreadPool;

/*! \brief Restores the pool's size and tasks per thread when a test ends. */
struct PoolGuard {
  int threads = ThreadPool::Global()->num_threads();
  ~PoolGuard() {
    ThreadPool::Global()->SetNumThreads(threads);
    ThreadPool::Global()->SetTasksPerThread(0);
  }
};

TEST(ThreadPool, EveryTaskOnceForAnyTaskAndThreadCount) {
  PoolGuard guard;
  auto* pool = ThreadPool::Global();
  for (int threads : {1, 2, 3, 5}) {
    pool->SetNumThreads(threads);
    for (int n : {1, 2, 3, 4, 7, 8, 13, 64}) {
      std::vector<std::atomic<int>> hits(n);
      EXPECT_EQ(pool->Launch(
                    [&](int t, int num) {
                      EXPECT_EQ(num, n);
                      hits[t]++;
                      return 0;
                    },
                    n),
                0);
      for (int t = 0; t < n; ++t) EXPECT_EQ(hits[t].load(), 1) << threads << " threads, " << n;
    }
  }
}

TEST(ThreadPool, IdleThreadsTakeOverTheTasksOfABusyOne) {
  // Task 0 belongs to the caller's range [0, 4) and blocks until every other task is done, as
  // a preempted thread would: the worker must run tasks 1..3 of that range as well as its own
  // 4..7. With one fixed chunk per thread this could not finish (task 0 would give up).
  PoolGuard guard;
  auto* pool = ThreadPool::Global();
  pool->SetNumThreads(2);
  for (int round = 0; round < 5; ++round) {
    std::atomic<int> others{0};
    std::atomic<bool> saw_all{false};
    int rc = pool->Launch(
        [&](int t, int) {
          if (t != 0) {
            others++;
            return 0;
          }
          auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
          while (others.load() < 7 && std::chrono::steady_clock::now() < deadline) {
            std::this_thread::sleep_for(std::chrono::microseconds(50));
          }
          saw_all = others.load() == 7;
          return 0;
        },
        8);
    EXPECT_EQ(rc, 0);
    EXPECT_TRUE(saw_all.load()) << "round " << round;
  }
}

TEST(ThreadPool, ForkedChildRestartsItsWorkers) {
  // A forked child has none of the parent's workers: its first launch starts new ones (the
  // pool learns of the fork from a pthread_atfork count, not a getpid() per launch) and runs
  // every task once; the parent's pool goes on as before.
  PoolGuard guard;
  auto* pool = ThreadPool::Global();
  pool->SetNumThreads(2);
  auto every_task_once = [&]() {
    std::vector<std::atomic<int>> hits(16);
    if (pool->Launch(
            [&](int t, int) {
              hits[t]++;
              return 0;
            },
            16) != 0) {
      return false;
    }
    for (auto& h : hits) {
      if (h.load() != 1) return false;
    }
    return true;
  };
  ASSERT_TRUE(every_task_once());
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    alarm(60);  // a deadlocked child ends with SIGALRM instead of hanging the test
    bool ok = every_task_once() && every_task_once();
    _exit(ok && pool->num_threads() == 2 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_TRUE(every_task_once());
}

TEST(ThreadPool, DefaultTaskCountFollowsThreadsAndTasksPerThread) {
  PoolGuard guard;
  auto* pool = ThreadPool::Global();
  pool->SetNumThreads(1);
  EXPECT_EQ(pool->DefaultTaskCount(), 1);
  pool->SetNumThreads(3);
  pool->SetTasksPerThread(5);
  EXPECT_EQ(pool->DefaultTaskCount(), 15);
  pool->SetTasksPerThread(1);
  EXPECT_EQ(pool->DefaultTaskCount(), 3);
  pool->SetTasksPerThread(0);  // the default: 4 per thread unless MINITVM_TASKS_PER_THREAD
  EXPECT_GE(pool->DefaultTaskCount(), 3);
}

int32_t CountTask(int32_t task, int32_t num_task, void* closure) {
  auto* hits = static_cast<std::vector<std::atomic<int>>*>(closure);
  if (num_task != static_cast<int32_t>(hits->size())) return -1;
  (*hits)[task]++;
  return 0;
}

TEST(ThreadPool, BackendLaunchWithZeroUsesTheDefaultTaskCount) {
  PoolGuard guard;
  auto* pool = ThreadPool::Global();
  pool->SetNumThreads(2);
  pool->SetTasksPerThread(3);
  std::vector<std::atomic<int>> hits(6);
  EXPECT_EQ(MTVMBackendParallelLaunch(&CountTask, &hits, 0), 0);
  for (auto& h : hits) EXPECT_EQ(h.load(), 1);
}

TEST(ThreadPool, TraceRecordsEveryLaunchWithItsTasks) {
  PoolGuard guard;
  auto* pool = ThreadPool::Global();
  pool->SetNumThreads(2);
  auto trace = runtime::Registry::GetOrThrow("runtime.cpu.PoolTrace");
  auto dump = runtime::Registry::GetOrThrow("runtime.cpu.PoolTraceDump");
  trace(true);
  pool->Launch([](int, int) { return 0; }, 6);
  pool->Launch([](int, int) { return 0; }, 1);
  trace(false);
  std::istringstream lines(dump().cast<std::string>());
  std::string line;
  std::vector<std::string> rows;
  while (std::getline(lines, line)) rows.push_back(line);
  ASSERT_EQ(rows.size(), 2u);
  // "num_task num_threads wall_ns slot:tasks:busy:cpu:first ...": the slots' tasks add up.
  for (size_t i = 0; i < rows.size(); ++i) {
    std::istringstream row(rows[i]);
    int num_task = 0, num_threads = 0, total = 0;
    int64_t wall = 0;
    row >> num_task >> num_threads >> wall;
    EXPECT_EQ(num_task, i == 0 ? 6 : 1);
    EXPECT_EQ(num_threads, i == 0 ? 2 : 1);
    std::string slot;
    while (row >> slot) {
      size_t a = slot.find(':'), b = slot.find(':', a + 1);
      total += std::stoi(slot.substr(a + 1, b - a - 1));
    }
    EXPECT_EQ(total, num_task) << rows[i];
  }
}

}  // namespace
}  // namespace minitvm
