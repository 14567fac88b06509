//! `axum::serve` on the facade's `TcpListener`, JSON routes, graceful
//! shutdown asked for by a request, all called with reqwest (plain HTTP).
//! The handlers check that the connection task axum spawned is in rt's
//! task dump. Both schedulers.

use axum::extract::{Path, State};
use axum::routing::{get, post};
use axum::{Json, Router};
use rt_ecosystem_tests::{assert_rt_runs, bounded, rt_task_ids};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Item {
    id: u32,
    name: String,
}

#[derive(Debug, Serialize, Deserialize)]
struct Whoami {
    /// The task axum runs this handler in (its connection task).
    task: String,
    /// Whether rt's task dump lists that task.
    in_rt_dump: bool,
}

#[derive(Clone, Default)]
struct AppState {
    items: Arc<Mutex<HashMap<u32, Item>>>,
    shutdown: Arc<Mutex<Option<tokio::sync::oneshot::Sender<()>>>>,
}

async fn create(State(state): State<AppState>, Json(item): Json<Item>) -> Json<Item> {
    state.items.lock().unwrap().insert(item.id, item.clone());
    Json(item)
}

async fn read(State(state): State<AppState>, Path(id): Path<u32>) -> Json<Option<Item>> {
    Json(state.items.lock().unwrap().get(&id).cloned())
}

async fn whoami() -> Json<Whoami> {
    let task = tokio::task::id();
    Json(Whoami {
        task: task.to_string(),
        in_rt_dump: rt_task_ids().contains(&task),
    })
}

async fn shutdown(State(state): State<AppState>) -> &'static str {
    if let Some(tx) = state.shutdown.lock().unwrap().take() {
        let _ = tx.send(());
    }
    "shutting down"
}

async fn serve_and_call() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (shutdown_tx, shutdown_rx) = tokio::sync::oneshot::channel();
    let state = AppState {
        shutdown: Arc::new(Mutex::new(Some(shutdown_tx))),
        ..AppState::default()
    };
    let app = Router::new()
        .route("/items", post(create))
        .route("/items/{id}", get(read))
        .route("/whoami", get(whoami))
        .route("/shutdown", post(shutdown))
        .with_state(state);
    let server = tokio::spawn(async move {
        axum::serve(listener, app)
            .with_graceful_shutdown(async {
                let _ = shutdown_rx.await;
            })
            .await
    });
    assert_rt_runs(server.id());

    let client = reqwest::Client::new();
    let base = format!("http://{addr}");
    let item = Item {
        id: 7,
        name: "seven".to_owned(),
    };
    let created: Item = bounded("POST /items", async {
        client
            .post(format!("{base}/items"))
            .json(&item)
            .send()
            .await
            .unwrap()
            .error_for_status()
            .unwrap()
            .json()
            .await
            .unwrap()
    })
    .await;
    assert_eq!(created, item);

    let read_back: Option<Item> = bounded("GET /items/7", async {
        client
            .get(format!("{base}/items/7"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    })
    .await;
    assert_eq!(read_back, Some(item));
    let missing: Option<Item> = bounded("GET /items/8", async {
        client
            .get(format!("{base}/items/8"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    })
    .await;
    assert_eq!(missing, None);

    let whoami: Whoami = bounded("GET /whoami", async {
        client
            .get(format!("{base}/whoami"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    })
    .await;
    assert!(
        whoami.in_rt_dump,
        "axum's connection task {} is not rt's",
        whoami.task
    );
    assert_ne!(whoami.task, server.id().to_string());

    let status = bounded("POST /shutdown", async {
        client
            .post(format!("{base}/shutdown"))
            .send()
            .await
            .unwrap()
            .status()
    })
    .await;
    assert!(status.is_success());
    // Graceful shutdown: the server finishes once the open (keep-alive)
    // connections are closed.
    drop(client);
    bounded("graceful shutdown", server).await.unwrap().unwrap();
    assert!(tokio::net::TcpStream::connect(addr).await.is_err());
}

#[tokio::test]
async fn axum_serve_current_thread() {
    serve_and_call().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn axum_serve_multi_thread() {
    serve_and_call().await;
}
