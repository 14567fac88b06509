//! Benchmarks comparing rt with tokio and smol; see `benches/`.
