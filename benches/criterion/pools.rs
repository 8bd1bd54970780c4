//! What the solve benches share: a thread pool for each thread count they compare.

/// Calls `f` with one thread's pool, then with a pool of every thread the machine has (each
/// built just before its call), so one run measures both.
pub fn with_each_pool(mut f: impl FnMut(usize, &rayon::ThreadPool)) {
    let all = std::thread::available_parallelism().map_or(2, |n| n.get());
    for threads in [1, all] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        f(threads, &pool);
    }
}
