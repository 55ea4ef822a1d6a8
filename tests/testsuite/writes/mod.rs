//! Safe writes: concurrent commands, flushes in order (strace), and
//! commands killed at every write.

mod concurrency;
mod durable;
mod kill_points;
