//! The file server of `tower_http_fs.rs` with its responses cut short:
//! clients that leave mid-body, connection tasks aborted, a runtime
//! dropped, a file truncated while it is sent. Each checks, once the
//! server has settled (its connections reported gone, the blocking pool
//! idle), that no descriptor is left open on the file. Both schedulers.

mod file_server;

use axum::http::header;
use file_server::*;
use rt_ecosystem_tests::bounded;
use std::sync::Arc;

/// A client that reads the start of a body and goes away: the server's
/// connection ends, its response body (and the file in it) is dropped,
/// and no descriptor stays open on the file. Whole, ranged and gzipped
/// bodies. The client is hyper-util's, with a small receive buffer (which
/// also stops the kernel growing it): the file is far larger than what
/// the socket buffers and hyper hold, so the server is still sending
/// when the client leaves.
async fn client_disconnects_mid_body() {
    use http_body_util::BodyExt;

    let site = Site::new();
    let path = site.path("large.bin");
    std::fs::write(&path, pattern(7, 24 * 1024 * 1024)).unwrap();
    let mut server = Server::start(site.router()).await;
    let url = server.url("/large.bin");
    let requests: [&[(header::HeaderName, &str)]; 3] = [
        &[],
        &[(header::RANGE, "bytes=1000-")],
        &[(header::ACCEPT_ENCODING, "gzip")],
    ];
    for headers in requests {
        let client = hyper_client(Some(16 * 1024), false);
        let mut response = bounded("the request", client.request(hyper_request(&url, headers)))
            .await
            .unwrap();
        assert!(response.status().is_success(), "{headers:?}");
        let first = bounded("the first frame", response.body_mut().frame())
            .await
            .unwrap()
            .unwrap();
        assert!(first.data_ref().is_some_and(|data| !data.is_empty()));
        assert_eq!(
            fds_open_on(&path),
            1,
            "{headers:?}: the file is open mid-body"
        );
        drop(response);
        drop(client);
        bounded("the connection closing", server.closed.recv())
            .await
            .unwrap();
        blocking_pool_idle().await;
        assert_eq!(
            fds_open_on(&path),
            0,
            "{headers:?}: the file is still open after its client left"
        );
    }
}

/// Connection tasks aborted while they send a file (a server shutting
/// down): the clients see their bodies fail, and no descriptor stays open.
async fn connections_aborted_mid_body() {
    use http_body_util::BodyExt;

    let site = Site::new();
    let path = site.path("large.bin");
    std::fs::write(&path, pattern(11, 24 * 1024 * 1024)).unwrap();
    let mut server = Server::start(site.router()).await;
    let url = server.url("/large.bin");
    let requests: [&[(header::HeaderName, &str)]; 3] = [
        &[],
        &[(header::RANGE, "bytes=5000000-")],
        &[(header::ACCEPT_ENCODING, "gzip")],
    ];
    let mut responses = Vec::new();
    for headers in requests {
        // One client each: one connection each.
        let client = hyper_client(Some(16 * 1024), false);
        let mut response = bounded("the request", client.request(hyper_request(&url, headers)))
            .await
            .unwrap();
        bounded("the first frame", response.body_mut().frame())
            .await
            .unwrap()
            .unwrap();
        responses.push((client, response));
    }
    assert_eq!(
        fds_open_on(&path),
        requests.len(),
        "the file is open mid-body"
    );
    server.abort_connections();
    for _ in &requests {
        bounded("a connection closing", server.closed.recv())
            .await
            .unwrap();
    }
    for (_client, response) in responses {
        let rest = bounded("the rest of a body", response.into_body().collect()).await;
        assert!(rest.is_err(), "a body cut short ended cleanly");
    }
    blocking_pool_idle().await;
    assert_eq!(fds_open_on(&path), 0, "the file is open after the aborts");
}

/// Many clients at once on one file, half reading it whole, half leaving
/// after the first chunk: the whole ones get every byte, and once every
/// connection is gone no descriptor is open on the file. HTTP/1 only: an
/// HTTP/2 stream's body lives in a task of its own, which may outlive
/// the connection's (`http2_streams` waits for its file to close).
async fn many_clients_some_leave() {
    use http_body_util::BodyExt;

    let site = Site::new();
    let mut server = Server::start(site.router()).await;
    let data = Arc::new(site.bytes(BIG));
    let url = server.url(&format!("/{BIG}"));
    let clients = 24;
    let mut tasks = tokio::task::JoinSet::new();
    for client_index in 0..clients {
        let (data, url) = (data.clone(), url.clone());
        tasks.spawn(async move {
            let client = hyper_client(Some(16 * 1024), false);
            let mut response = client.request(hyper_request(&url, &[])).await.unwrap();
            if client_index % 2 == 0 {
                let body = response.into_body().collect().await.unwrap().to_bytes();
                assert_body(&format!("client {client_index}"), &body, &data);
            } else {
                let first = response.body_mut().frame().await.unwrap().unwrap();
                let first = first.into_data().unwrap();
                assert_body("a first chunk", &first, &data[..first.len()]);
            }
        });
    }
    while let Some(joined) = bounded("the clients", tasks.join_next()).await {
        joined.unwrap();
    }
    for _ in 0..clients {
        bounded("a connection closing", server.closed.recv())
            .await
            .unwrap();
    }
    blocking_pool_idle().await;
    assert_eq!(fds_open_on(&site.path(BIG)), 0, "the file is still open");
}

/// A file truncated while its body is being sent: the body ends early, the
/// client sees an error (fewer bytes than the length announced), every byte
/// it got is the file's, and the server lets go of the file.
async fn file_truncated_mid_body() {
    use http_body_util::BodyExt;

    let site = Site::new();
    let path = site.path("shrinking.bin");
    let data = pattern(9, 24 * 1024 * 1024);
    std::fs::write(&path, &data).unwrap();
    let mut server = Server::start(site.router()).await;
    let client = hyper_client(Some(16 * 1024), false);
    let mut response = bounded(
        "the request",
        client.request(hyper_request(&server.url("/shrinking.bin"), &[])),
    )
    .await
    .unwrap();
    let mut received = Vec::new();
    let first = bounded("the first frame", response.body_mut().frame())
        .await
        .unwrap()
        .unwrap();
    received.extend_from_slice(first.data_ref().unwrap());
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(100_000)
        .unwrap();
    let ended = bounded("the rest of the body", async {
        loop {
            match response.body_mut().frame().await {
                Some(Ok(frame)) => {
                    if let Some(data) = frame.data_ref() {
                        received.extend_from_slice(data);
                    }
                }
                Some(Err(e)) => break Err(e),
                None => break Ok(()),
            }
        }
    })
    .await;
    assert!(ended.is_err(), "a body cut short ended cleanly");
    assert!(received.len() < data.len());
    assert_body(
        "the bytes before the cut",
        &received,
        &data[..received.len()],
    );
    drop(response);
    drop(client);
    bounded("the connection closing", server.closed.recv())
        .await
        .unwrap();
    blocking_pool_idle().await;
    assert_eq!(fds_open_on(&path), 0, "the file is still open");
}

/// A runtime shut down (dropped) while it serves a file: its tasks, the
/// response body among them, are dropped and the blocking reads finish,
/// so no descriptor is left open on the file.
fn runtime_dropped_mid_body(runtime: tokio::runtime::Runtime) {
    use http_body_util::BodyExt;

    let site = Site::new();
    let path = site.path("large.bin");
    std::fs::write(&path, pattern(10, 24 * 1024 * 1024)).unwrap();
    // The server, client and response outlive the runtime: only its
    // shutdown can close the file.
    let kept = runtime.block_on(async {
        let server = Server::start(site.router()).await;
        let client = hyper_client(Some(16 * 1024), false);
        let mut response = bounded(
            "the request",
            client.request(hyper_request(&server.url("/large.bin"), &[])),
        )
        .await
        .unwrap();
        bounded("the first frame", response.body_mut().frame())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(fds_open_on(&path), 1, "the file is open mid-body");
        (server, client, response)
    });
    drop(runtime);
    assert_eq!(
        fds_open_on(&path),
        0,
        "the file is open after the runtime dropped"
    );
    drop(kept);
}

#[test]
fn runtime_dropped_mid_body_current_thread() {
    runtime_dropped_mid_body(
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap(),
    );
}

#[test]
fn runtime_dropped_mid_body_multi_thread() {
    runtime_dropped_mid_body(
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap(),
    );
}

on_both_schedulers!(
    client_disconnects_mid_body,
    connections_aborted_mid_body,
    many_clients_some_leave,
    file_truncated_mid_body,
);
