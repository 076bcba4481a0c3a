//! The `few-workers` variant's pool: a process serves at most [`WORKERS`] tasks' work at once,
//! across all its sessions, as a server with a small worker pool does; a task waiting for a
//! worker reads `working`, and cancelling it frees its place.

use super::Work;
use std::sync::OnceLock;
use tokio::sync::Semaphore;

/// How many tasks work at once.
pub const WORKERS: usize = 2;

/// The process's pool.
fn pool() -> &'static Semaphore {
    static POOL: OnceLock<Semaphore> = OnceLock::new();
    POOL.get_or_init(|| Semaphore::new(WORKERS))
}

/// `work`, begun once a worker is free.
pub fn pooled(work: Work) -> Work {
    Box::pin(async move {
        let _worker = pool().acquire().await;
        work.await
    })
}
