//! An axum app served on rt.
//!
//! ```text
//! cargo run --release -p rt --features hyper --example axum_app            # 127.0.0.1:3000
//! curl -X POST -H 'content-type: application/json' \
//!      -d '{"name":"bolt","quantity":40}' http://127.0.0.1:3000/items
//! curl http://127.0.0.1:3000/items/1
//! ```
//!
//! `axum::serve` needs tokio's listener, so on rt the app is served the way
//! any hyper service is: rt's `TcpListener` accepts, hyper-util's
//! connection builder serves each connection on an rt task with
//! `rt::hyper::Io`, `Executor` and `Timer`, and hyper-util's
//! `TowerToHyperService` turns the router (a tower service) into a hyper
//! one. Everything else (routing, extractors, state, JSON) is plain axum.
//!
//! `app` and `serve` are also what `tests/hyper_axum.rs` runs.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use hyper_util::server::conn::auto;
use hyper_util::service::TowerToHyperService;
use rt::hyper::{Executor, Io, Timer};
use rt::net::TcpListener;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::io;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

#[allow(dead_code)] // `tests/hyper_axum.rs` includes this file for `app` and `serve`.
fn main() -> io::Result<()> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:3000".to_owned());
    let runtime = rt::runtime::Runtime::new()?;
    runtime.block_on(async {
        let listener = TcpListener::bind(addr.as_str()).await?;
        println!("axum_app: listening on http://{}", listener.local_addr()?);
        serve(listener, app()).await
    })
}

/// What a client sends to create an item.
#[derive(Debug, Deserialize)]
pub(crate) struct NewItem {
    name: String,
    quantity: u32,
}

/// A stored item, as the API returns it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub(crate) struct Item {
    pub(crate) id: u64,
    pub(crate) name: String,
    pub(crate) quantity: u32,
}

/// The state every handler shares: the items created so far.
#[derive(Clone, Debug, Default)]
struct Inventory {
    items: Arc<Mutex<Items>>,
}

#[derive(Debug, Default)]
struct Items {
    last_id: u64,
    by_id: HashMap<u64, Item>,
}

/// The router: `POST /items` creates an item from JSON and answers
/// `201 Created` with it (its new `id` included); `GET /items/{id}` answers
/// the item as JSON, or `404 Not Found`.
pub(crate) fn app() -> Router {
    Router::new()
        .route("/items", post(create_item))
        .route("/items/{id}", get(item))
        .with_state(Inventory::default())
}

async fn create_item(
    State(inventory): State<Inventory>,
    Json(new): Json<NewItem>,
) -> (StatusCode, Json<Item>) {
    // The lock is never held across an await, so a std mutex does; a
    // handler that panicked holding it left no half-made item behind.
    let mut items = inventory
        .items
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    items.last_id += 1;
    let item = Item {
        id: items.last_id,
        name: new.name,
        quantity: new.quantity,
    };
    items.by_id.insert(item.id, item.clone());
    (StatusCode::CREATED, Json(item))
}

async fn item(
    State(inventory): State<Inventory>,
    Path(id): Path<u64>,
) -> Result<Json<Item>, StatusCode> {
    let items = inventory
        .items
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    items
        .by_id
        .get(&id)
        .cloned()
        .map(Json)
        .ok_or(StatusCode::NOT_FOUND)
}

/// Serves `app` on every connection `listener` accepts (HTTP/1.1 or
/// HTTP/2), each on its own rt task, for ever.
pub(crate) async fn serve(listener: TcpListener, app: Router) -> ! {
    let mut builder = auto::Builder::new(Executor::new());
    builder.http1().timer(Timer::new());
    builder.http2().timer(Timer::new());
    let builder = Arc::new(builder);
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _peer)) => stream,
            Err(e) => {
                // Out of descriptors, or a connection reset before it was
                // accepted: pause rather than spin, then take the next one.
                eprintln!("axum_app: accept: {e}");
                rt::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let builder = Arc::clone(&builder);
        let service = TowerToHyperService::new(app.clone());
        rt::spawn(async move {
            if let Err(e) = builder.serve_connection(Io::new(stream), service).await {
                eprintln!("axum_app: connection: {e}");
            }
        });
    }
}
