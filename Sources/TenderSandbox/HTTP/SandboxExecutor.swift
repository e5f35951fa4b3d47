import Foundation

/// The thread a running sandbox serves from: its connections, their deadlines and the stand-ins they call run here,
/// not on Swift's shared cooperative threads.
///
/// A process that blocks those few threads (a test suite running child processes, or waiting on storage) held every
/// answer and every deadline of a sandbox served from them until it let go: its clients gave up on a sandbox that
/// was not stuck but starved (on a loaded machine, for over 20 seconds). A sandbox's work is small, so one thread
/// serves it; the system schedules that thread whatever the shared pool is doing.
///
/// Jobs enqueued after ``stop()`` (a task that outlived the server, finishing) run on the global executor.
final class SandboxExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked: `jobs` and `isStopped` are read and changed only while holding `condition`'s lock.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var isStopped = false

    /// Starts the thread, named `name`.
    init(name: String) {
        // The thread holds the executor until it stops.
        let thread = Thread { [self] in runJobs() }
        thread.name = name
        thread.start()
    }

    /// Runs `job` on the thread, after the jobs before it.
    func enqueue(_ job: consuming ExecutorJob) {
        condition.lock()
        guard !isStopped else {
            condition.unlock()
            globalConcurrentExecutor.enqueue(job)
            return
        }
        jobs.append(UnownedJob(job))
        condition.signal()
        condition.unlock()
    }

    /// Lets the thread end once it has run the jobs already enqueued.
    func stop() {
        condition.lock()
        isStopped = true
        condition.signal()
        condition.unlock()
    }

    private func runJobs() {
        while true {
            condition.lock()
            while jobs.isEmpty && !isStopped { condition.wait() }
            let batch = jobs
            jobs = []
            condition.unlock()
            if batch.isEmpty { return }
            for job in batch { job.runSynchronously(on: asUnownedTaskExecutor()) }
        }
    }
}
