//! sqlx with in-memory SQLite (`runtime-tokio`) on rt: a pool whose
//! background tasks are rt's, a committed and a rolled-back transaction,
//! and concurrent queries from spawned tasks. Both schedulers.

use rt_ecosystem_tests::{assert_rt_runs, bounded, rt_task_count};
use sqlx::sqlite::SqlitePoolOptions;
use sqlx::{Connection, Row};

async fn pool_transactions_concurrency(name: &str) {
    let before = rt_task_count();
    // One shared in-memory database for every connection of the pool.
    let url = format!("sqlite:file:{name}?mode=memory&cache=shared");
    let pool = bounded(
        "connect",
        SqlitePoolOptions::new()
            .max_connections(4)
            .min_connections(2)
            .connect(&url),
    )
    .await
    .unwrap();
    // The pool's maintenance task was spawned with `tokio::spawn`: rt's.
    assert!(rt_task_count() > before, "sqlx spawned no rt task");

    sqlx::query("CREATE TABLE items (id INTEGER PRIMARY KEY, value INTEGER NOT NULL)")
        .execute(&pool)
        .await
        .unwrap();

    // A committed transaction.
    let mut tx = pool.begin().await.unwrap();
    for i in 1..=100i64 {
        sqlx::query("INSERT INTO items (id, value) VALUES (?, ?)")
            .bind(i)
            .bind(i * 2)
            .execute(&mut *tx)
            .await
            .unwrap();
    }
    tx.commit().await.unwrap();

    // A rolled-back one: its insert is gone.
    let mut conn = pool.acquire().await.unwrap();
    let mut tx = conn.begin().await.unwrap();
    sqlx::query("INSERT INTO items (id, value) VALUES (1000, 1)")
        .execute(&mut *tx)
        .await
        .unwrap();
    tx.rollback().await.unwrap();
    drop(conn);

    // Concurrent readers, each an rt task.
    let mut readers = Vec::new();
    for low in (0..100i64).step_by(10) {
        let pool = pool.clone();
        let reader = tokio::spawn(async move {
            let row =
                sqlx::query("SELECT COUNT(*), SUM(value) FROM items WHERE id > ? AND id <= ?")
                    .bind(low)
                    .bind(low + 10)
                    .fetch_one(&pool)
                    .await
                    .unwrap();
            (row.get::<i64, _>(0), row.get::<i64, _>(1))
        });
        assert_rt_runs(reader.id());
        readers.push(reader);
    }
    let mut count = 0;
    let mut sum = 0;
    for reader in readers {
        let (c, s) = bounded("reader", reader).await.unwrap();
        count += c;
        sum += s;
    }
    assert_eq!(count, 100);
    assert_eq!(sum, (1..=100i64).map(|i| i * 2).sum::<i64>());
    let max: i64 = sqlx::query_scalar("SELECT MAX(id) FROM items")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(max, 100);
    bounded("pool close", pool.close()).await;
}

#[tokio::test]
async fn sqlite_current_thread() {
    pool_transactions_concurrency("rt_eco_current").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_multi_thread() {
    pool_transactions_concurrency("rt_eco_multi").await;
}
