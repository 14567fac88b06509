//! The axum example's router (runtime/examples/axum_app.rs), served by its
//! `serve` on rt, on both schedulers, over HTTP/1.1 and HTTP/2.

#[allow(dead_code)]
#[path = "../examples/axum_app.rs"]
mod axum_app;
mod support;
#[path = "support/http.rs"]
mod support_http;

use axum_app::Item;
use hyper::StatusCode;
use rt::net::TcpListener;
use support::on_both;
use support_http::{body_of, http1_client, http2_client, request};

fn json_request(uri: &str, json: &str) -> hyper::Request<support_http::Body> {
    let mut request = request("POST", uri, json.to_owned());
    request.headers_mut().insert(
        "content-type",
        hyper::header::HeaderValue::from_static("application/json"),
    );
    request
}

#[test]
fn the_routes_answer_json_and_share_state() {
    on_both(|| async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        rt::spawn(async move {
            axum_app::serve(listener, axum_app::app()).await;
        });
        let (mut h1, _h1_connection) = http1_client(addr).await;
        let (mut h2, _h2_connection) = http2_client(addr).await;

        // Created over HTTP/1.1 ...
        let response = h1
            .send_request(json_request("/items", r#"{"name":"bolt","quantity":40}"#))
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::CREATED);
        assert_eq!(response.headers()["content-type"], "application/json",);
        let created: Item = serde_json::from_slice(&body_of(response).await).unwrap();
        let bolt = Item {
            id: 1,
            name: "bolt".to_owned(),
            quantity: 40,
        };
        assert_eq!(created, bolt);

        // ... seen over HTTP/2 (another connection, the same state).
        let response = h2
            .send_request(request("GET", "/items/1", ""))
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        let fetched: Item = serde_json::from_slice(&body_of(response).await).unwrap();
        assert_eq!(fetched, bolt);

        let response = h2
            .send_request(json_request("/items", r#"{"name":"nut","quantity":3}"#))
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::CREATED);
        let nut: Item = serde_json::from_slice(&body_of(response).await).unwrap();
        assert_eq!((nut.id, nut.name.as_str(), nut.quantity), (2, "nut", 3));

        h1.ready().await.unwrap();
        let response = h1
            .send_request(request("GET", "/items/3", ""))
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::NOT_FOUND);

        // axum's JSON extractor rejects what does not parse.
        h1.ready().await.unwrap();
        let response = h1
            .send_request(json_request("/items", r#"{"name":"no quantity"}"#))
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
        h1.ready().await.unwrap();
        let response = h1
            .send_request(request("POST", "/items", "{}"))
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    });
}
