//! A static-file server as users write one: tower-http's `ServeDir` and
//! `ServeFile` (their reads, seeks and metadata are the facade's
//! `tokio::fs::File`, streamed by tokio-util's `ReaderStream`) in an axum
//! router, with tower-http's gzip `CompressionLayer`, served by
//! hyper-util's connection builder on the facade's `TcpListener` and
//! fetched with reqwest and hyper-util's client (`file_server/`). Every
//! body is compared with the file's bytes: whole files, ranges,
//! conditional requests, precompressed and gzipped bodies, HTTP/2, files
//! changed between requests, uploads written at offsets. Both schedulers.
//! Responses cut short are `tower_http_fs_cut_short.rs`'s.

mod file_server;

use axum::http::{StatusCode, header};
use file_server::*;
use rt_ecosystem_tests::bounded;
use std::sync::Arc;

/// Every size, whole, from the 64 KiB and the 8 KiB `ServeDir`; HEAD
/// gives the length and no body.
async fn whole_files() {
    let site = Site::new();
    let server = Server::start(site.router()).await;
    let client = reqwest::Client::new();
    for &len in SIZES {
        let name = sized_name(len);
        let expected = site.bytes(&name);
        for prefix in ["", "/chunk8k"] {
            let url = server.url(&format!("{prefix}/{name}"));
            let (status, headers, body) = get(&client, &url).await;
            assert_eq!(status, StatusCode::OK, "{url}");
            assert_eq!(
                header_str(&headers, header::CONTENT_LENGTH),
                Some(len.to_string().as_str()),
                "{url}"
            );
            assert_body(&url, &body, &expected);

            let (status, headers, body) = fetch(&client, reqwest::Method::HEAD, &url, &[]).await;
            assert_eq!(status, StatusCode::OK, "HEAD {url}");
            assert_eq!(
                header_str(&headers, header::CONTENT_LENGTH),
                Some(len.to_string().as_str()),
                "HEAD {url}"
            );
            assert!(body.is_empty(), "HEAD {url}: a body of {}", body.len());
        }
    }
    let (status, _, body) = get(&client, &server.url("/single")).await;
    assert_eq!(status, StatusCode::OK);
    assert_body("/single", &body, &site.bytes("page.txt"));
}

/// `Range`: single ranges at the start, middle (across the 2 MiB mark)
/// and end, open-ended and suffix ranges, and the unsatisfiable ones.
async fn ranges() {
    let site = Site::new();
    let server = Server::start(site.router()).await;
    let client = reqwest::Client::new();
    let data = site.bytes(BIG);
    let len = data.len() as u64;
    let mib2 = 2 * 1024 * 1024;
    // (header, first byte, last byte)
    let cases = [
        ("bytes=0-0".to_owned(), 0, 0),
        ("bytes=0-99".to_owned(), 0, 99),
        ("bytes=1-65536".to_owned(), 1, 65536),
        (
            format!("bytes={}-{}", mib2 - 10, mib2 + 10),
            mib2 - 10,
            mib2 + 10,
        ),
        (format!("bytes=70000-{}", mib2 + 70000), 70000, mib2 + 70000),
        (
            format!("bytes={}-{}", len - 100, len - 1),
            len - 100,
            len - 1,
        ),
        (format!("bytes={}-", len - 5000), len - 5000, len - 1),
        ("bytes=123456-".to_owned(), 123_456, len - 1),
        ("bytes=-500".to_owned(), len - 500, len - 1),
        (format!("bytes=-{}", mib2 + 1), len - mib2 - 1, len - 1),
        // Past the end: up to the last byte.
        (
            format!("bytes={}-{}", len - 10, len + 1000),
            len - 10,
            len - 1,
        ),
    ];
    for prefix in ["", "/chunk8k"] {
        let url = server.url(&format!("{prefix}/{BIG}"));
        for (range, first, last) in &cases {
            let (status, headers, body) = get_range(&client, &url, range).await;
            assert_eq!(status, StatusCode::PARTIAL_CONTENT, "{url} {range}");
            assert_eq!(
                header_str(&headers, header::CONTENT_RANGE),
                Some(format!("bytes {first}-{last}/{len}").as_str()),
                "{url} {range}"
            );
            assert_body(
                &format!("{url} {range}"),
                &body,
                &data[*first as usize..=*last as usize],
            );
        }
        // Starting past the end, or a suffix longer than the file (which
        // tower-http refuses rather than serving the whole file).
        for range in [
            format!("bytes={len}-"),
            format!("bytes={}-{}", len + 1, len + 9),
            format!("bytes=-{}", len + 1),
        ] {
            let (status, headers, _) = get_range(&client, &url, &range).await;
            assert_eq!(status, StatusCode::RANGE_NOT_SATISFIABLE, "{url} {range}");
            assert_eq!(
                header_str(&headers, header::CONTENT_RANGE),
                Some(format!("bytes */{len}").as_str()),
                "{url} {range}"
            );
        }
    }
    // Ranges of the small files, on both sides of each boundary.
    for &size in SIZES.iter().filter(|&&size| size > 1) {
        let name = sized_name(size);
        let data = site.bytes(&name);
        let half = size / 2;
        for (range, first, last) in [
            (format!("bytes={half}-"), half, size - 1),
            (format!("bytes=1-{}", size - 2), 1, size - 2),
            ("bytes=-1".to_owned(), size - 1, size - 1),
        ] {
            let url = server.url(&format!("/{name}"));
            let (status, _, body) = get_range(&client, &url, &range).await;
            assert_eq!(status, StatusCode::PARTIAL_CONTENT, "{url} {range}");
            assert_body(&format!("{url} {range}"), &body, &data[first..=last]);
        }
    }
    // The empty file: tower-http answers `bytes=0-` with a 206 of no bytes
    // (`bytes 0-0/0`, length 0) rather than a 416; what matters here is
    // that no byte comes back.
    let url = server.url(&format!("/{}", sized_name(0)));
    let (status, headers, body) = get_range(&client, &url, "bytes=0-").await;
    assert!(status.is_success(), "{url}: {status}");
    assert_eq!(header_str(&headers, header::CONTENT_LENGTH), Some("0"));
    assert!(body.is_empty(), "{url}: {} bytes", body.len());
}

/// `If-Modified-Since` and `If-Unmodified-Since` against the file's
/// modification time, on GET and HEAD.
async fn conditional_requests() {
    let site = Site::new();
    let server = Server::start(site.router()).await;
    let client = reqwest::Client::new();
    let url = server.url(&format!("/{}", sized_name(16 * 1024)));
    let (status, headers, _) = get(&client, &url).await;
    assert_eq!(status, StatusCode::OK);
    let last_modified = header_str(&headers, header::LAST_MODIFIED)
        .expect("a Last-Modified header")
        .to_owned();
    let long_ago = "Thu, 01 Jan 1998 00:00:00 GMT";
    for method in [reqwest::Method::GET, reqwest::Method::HEAD] {
        let (status, _, body) = fetch(
            &client,
            method.clone(),
            &url,
            &[(header::IF_MODIFIED_SINCE, &last_modified)],
        )
        .await;
        assert_eq!(status, StatusCode::NOT_MODIFIED, "{method}");
        assert!(body.is_empty());
        let (status, _, body) = fetch(
            &client,
            method.clone(),
            &url,
            &[(header::IF_MODIFIED_SINCE, long_ago)],
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{method}");
        if method == reqwest::Method::GET {
            assert_body(&url, &body, &site.bytes(&sized_name(16 * 1024)));
        }
        let (status, _, _) = fetch(
            &client,
            method.clone(),
            &url,
            &[(header::IF_UNMODIFIED_SINCE, long_ago)],
        )
        .await;
        assert_eq!(status, StatusCode::PRECONDITION_FAILED, "{method}");
    }
}

/// A missing file is 404, a directory serves its `index.html` (after a
/// redirect to the slash form), a precompressed sibling is sent as is to
/// a client that accepts gzip, and other bodies are gzipped on the fly.
async fn directory_precompressed_and_gzip() {
    let site = Site::new();
    let server = Server::start(site.router()).await;
    let client = reqwest::Client::new();

    let (status, _, _) = get(&client, &server.url("/no-such-file")).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    // A path through a file fails with ENOTDIR and one with a NUL byte
    // with `InvalidInput`: tower-http tells both from other errors (a 500)
    // by the error the facade returns.
    for path in ["/page.txt/below", "/page%00.txt"] {
        for method in [reqwest::Method::GET, reqwest::Method::HEAD] {
            if path.contains('%') && method == reqwest::Method::HEAD {
                // tower-http answers HEAD with a NUL byte with a 500 on
                // tokio too: its metadata path does not check for it.
                continue;
            }
            let (status, _, _) = fetch(&client, method.clone(), &server.url(path), &[]).await;
            assert_eq!(status, StatusCode::NOT_FOUND, "{method} {path}");
        }
    }
    let (status, _, body) = get(&client, &server.url("/app/no/such/page")).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_body("the app's fallback", &body, &site.bytes("docs/index.html"));
    let (status, _, body) = get(&client, &server.url("/app/page.txt")).await;
    assert_eq!(status, StatusCode::OK);
    assert_body("/app/page.txt", &body, &site.bytes("page.txt"));
    let (status, _, body) = get(&client, &server.url("/docs/")).await;
    assert_eq!(status, StatusCode::OK);
    assert_body("/docs/", &body, &site.bytes("docs/index.html"));
    // reqwest follows the redirect to `/docs/`.
    let response = bounded("GET /docs", client.get(server.url("/docs")).send())
        .await
        .unwrap();
    assert_eq!(response.url().path(), "/docs/");
    let body = bounded("GET /docs body", response.bytes()).await.unwrap();
    assert_body("/docs", &body, &site.bytes("docs/index.html"));

    let gzip_ok = [(header::ACCEPT_ENCODING, "gzip")];
    let page = site.bytes("page.txt");
    for url in [server.url("/page.txt"), server.url("/single")] {
        let (status, headers, body) = fetch(&client, reqwest::Method::GET, &url, &gzip_ok).await;
        assert_eq!(status, StatusCode::OK, "{url}");
        assert_eq!(
            header_str(&headers, header::CONTENT_ENCODING),
            Some("gzip"),
            "{url}"
        );
        assert_body(&url, &gunzip(&body), &page);
    }
    // The precompressed file itself, byte for byte.
    let (_, _, body) = fetch(
        &client,
        reqwest::Method::GET,
        &server.url("/page.txt"),
        &gzip_ok,
    )
    .await;
    assert_body("/page.txt.gz", &body, &site.bytes("page.txt.gz"));
    let (_, headers, body) = get(&client, &server.url("/page.txt")).await;
    assert_eq!(header_str(&headers, header::CONTENT_ENCODING), None);
    assert_body("/page.txt plain", &body, &page);

    // Compressed on the fly: every size, and the big file.
    let mut names: Vec<String> = SIZES.iter().map(|&len| sized_name(len)).collect();
    names.push(BIG.to_owned());
    for name in names {
        let url = server.url(&format!("/{name}"));
        let (status, headers, body) = fetch(&client, reqwest::Method::GET, &url, &gzip_ok).await;
        assert_eq!(status, StatusCode::OK, "{url}");
        let expected = site.bytes(&name);
        if header_str(&headers, header::CONTENT_ENCODING) == Some("gzip") {
            assert_body(&url, &gunzip(&body), &expected);
        } else {
            // tower-http leaves bodies of 32 bytes or less alone.
            assert!(expected.len() <= 32, "{url}: not compressed");
            assert_body(&url, &body, &expected);
        }
    }
}

/// Many clients at once fetch ranges of one file (each its own reqwest
/// client, so its own connections).
async fn concurrent_ranges() {
    let site = Site::new();
    let server = Server::start(site.router()).await;
    let data = Arc::new(site.bytes(BIG));
    let len = data.len();
    let mut clients = tokio::task::JoinSet::new();
    for client_index in 0..16usize {
        let url = server.url(&format!("/{BIG}"));
        let data = data.clone();
        clients.spawn(async move {
            let client = reqwest::Client::new();
            for request in 0..6usize {
                let start = (client_index * 196_613 + request * 524_309) % len;
                let end =
                    (start + 1 + (client_index * 7919 + request * 104_729) % 300_000).min(len) - 1;
                let range = format!("bytes={start}-{end}");
                let (status, _, body) = get_range(&client, &url, &range).await;
                assert_eq!(status, StatusCode::PARTIAL_CONTENT, "{range}");
                assert_body(&range, &body, &data[start..=end]);
            }
        });
    }
    while let Some(joined) = bounded("the concurrent clients", clients.join_next()).await {
        joined.unwrap();
    }
}

/// A file rewritten, truncated in place and extended between requests:
/// each response is the file as it is then.
async fn file_changed_between_requests() {
    let site = Site::new();
    let server = Server::start(site.router()).await;
    let client = reqwest::Client::new();
    let path = site.path("changing.bin");
    let url = server.url("/changing.bin");

    let first = pattern(1, 300_000);
    std::fs::write(&path, &first).unwrap();
    let (_, _, body) = get(&client, &url).await;
    assert_body("the first version", &body, &first);

    let second = pattern(2, 70_000);
    std::fs::write(&path, &second).unwrap();
    let (_, headers, body) = get(&client, &url).await;
    assert_eq!(header_str(&headers, header::CONTENT_LENGTH), Some("70000"));
    assert_body("rewritten shorter", &body, &second);

    // Truncated in place (the same inode), then a range past the new end.
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(10_000)
        .unwrap();
    let (_, _, body) = get(&client, &url).await;
    assert_body("truncated in place", &body, &second[..10_000]);
    let (status, _, _) = get_range(&client, &url, "bytes=20000-").await;
    assert_eq!(status, StatusCode::RANGE_NOT_SATISFIABLE);

    // Extended in place with new bytes.
    let third = pattern(3, 200_000);
    {
        let mut file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        std::io::Write::write_all(&mut file, &third).unwrap();
    }
    let (_, _, body) = get(&client, &url).await;
    assert_body("extended", &body, &third);
    let (_, _, body) = get_range(&client, &url, "bytes=150000-").await;
    assert_body("extended, ranged", &body, &third[150_000..]);
}

/// Ranges past 2 GiB and 4 GiB of a sparse 5 GiB file (no disk), each
/// around a marker written there: offsets and lengths keep their high
/// bits from the header to the seek.
async fn offsets_past_4_gib() {
    use std::os::unix::fs::FileExt;

    let site = Site::new();
    let path = site.path("sparse.bin");
    let len: u64 = (5 << 30) + 1234;
    let file = std::fs::File::create(&path).unwrap();
    file.set_len(len).unwrap();
    let marks = [(1 << 31) - 4, (1 << 32) - 4, 5 << 30, len - 8];
    for (i, &at) in marks.iter().enumerate() {
        file.write_all_at(&pattern(100 + i as u64, 8), at).unwrap();
    }
    drop(file);
    // The file's bytes from `first` to `last`.
    let expected = |first: u64, last: u64| -> Vec<u8> {
        let mut bytes = vec![0; (last - first + 1) as usize];
        for (i, &at) in marks.iter().enumerate() {
            for (j, byte) in pattern(100 + i as u64, 8).into_iter().enumerate() {
                let offset = at + j as u64;
                if (first..=last).contains(&offset) {
                    bytes[(offset - first) as usize] = byte;
                }
            }
        }
        bytes
    };
    let server = Server::start(site.router()).await;
    let client = reqwest::Client::new();
    let url = server.url("/sparse.bin");
    let (status, headers, _) = fetch(&client, reqwest::Method::HEAD, &url, &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        header_str(&headers, header::CONTENT_LENGTH),
        Some(len.to_string().as_str())
    );
    let mut cases: Vec<(String, u64, u64)> = marks
        .iter()
        .map(|&at| {
            let (first, last) = (at - 100, (at + 100).min(len - 1));
            (format!("bytes={first}-{last}"), first, last)
        })
        .collect();
    cases.push(("bytes=-16".to_owned(), len - 16, len - 1));
    cases.push((format!("bytes={}-", len - 3), len - 3, len - 1));
    for (range, first, last) in cases {
        let (status, headers, body) = get_range(&client, &url, &range).await;
        assert_eq!(status, StatusCode::PARTIAL_CONTENT, "{range}");
        assert_eq!(
            header_str(&headers, header::CONTENT_RANGE),
            Some(format!("bytes {first}-{last}/{len}").as_str())
        );
        assert_body(&range, &body, &expected(first, last));
    }
}

/// HTTP/2: the whole big file and ranges of it as streams multiplexed on
/// one connection, then a stream the client drops mid-body (a reset):
/// the server lets go of its file while the connection goes on.
async fn http2_streams() {
    use http_body_util::BodyExt;

    let site = Site::new();
    std::fs::write(site.path("large.bin"), pattern(8, 24 * 1024 * 1024)).unwrap();
    let server = Server::start(site.router()).await;
    let client = hyper_client(None, true);
    let data = Arc::new(site.bytes(BIG));
    let len = data.len();
    let url = server.url(&format!("/{BIG}"));
    let mut streams = tokio::task::JoinSet::new();
    for stream in 0..8usize {
        let (client, data, url) = (client.clone(), data.clone(), url.clone());
        streams.spawn(async move {
            let (range, expected) = if stream == 0 {
                (None, &data[..])
            } else {
                let start = stream * 299_993 % len;
                let end = (start + stream * 150_001).min(len - 1);
                (Some(format!("bytes={start}-{end}")), &data[start..=end])
            };
            let headers: Vec<_> = range.iter().map(|r| (header::RANGE, r.as_str())).collect();
            let response = client.request(hyper_request(&url, &headers)).await.unwrap();
            assert!(response.status().is_success(), "{range:?}");
            let body = response.into_body().collect().await.unwrap().to_bytes();
            assert_body(&format!("h2 {range:?}"), &body, expected);
        });
    }
    while let Some(joined) = bounded("the HTTP/2 streams", streams.join_next()).await {
        joined.unwrap();
    }

    let large = site.path("large.bin");
    let mut response = bounded(
        "the h2 request",
        client.request(hyper_request(&server.url("/large.bin"), &[])),
    )
    .await
    .unwrap();
    let first = bounded("the first h2 frame", response.body_mut().frame())
        .await
        .unwrap()
        .unwrap();
    assert!(first.data_ref().is_some_and(|data| !data.is_empty()));
    assert_eq!(fds_open_on(&large), 1, "the file is open mid-stream");
    drop(response);
    until_closed(&large).await;
    // The connection is still good.
    let response = bounded(
        "a request after the reset",
        client.request(hyper_request(&server.url("/page.txt"), &[])),
    )
    .await
    .unwrap();
    let body = bounded("its body", response.into_body().collect())
        .await
        .unwrap()
        .to_bytes();
    assert_body("after the reset", &body, &site.bytes("page.txt"));
}

/// An upload handler as users write one, next to the file server: each
/// `PUT` writes its body at the offset it names (a resumable upload), with
/// a seek, writes as the body arrives, a flush and `sync_all`. Parts sent
/// out of order, one past the end (a hole, filled later), then the file
/// served back whole and in ranges.
async fn uploads_written_at_offsets() {
    use axum::extract::{Path as UrlPath, Request};
    use http_body_util::BodyExt;
    use tokio::io::{AsyncSeekExt, AsyncWriteExt};

    let site = Site::new();
    let root = site.root.clone();
    let upload = move |UrlPath(name): UrlPath<String>, request: Request| {
        let path = root.join(name);
        async move {
            let offset: u64 = request.headers()["x-offset"]
                .to_str()
                .unwrap()
                .parse()
                .unwrap();
            let mut file = tokio::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(false)
                .open(&path)
                .await
                .unwrap();
            assert_eq!(
                file.seek(std::io::SeekFrom::Start(offset)).await.unwrap(),
                offset
            );
            let mut body = request.into_body();
            while let Some(frame) = body.frame().await {
                if let Ok(data) = frame.unwrap().into_data() {
                    file.write_all(&data).await.unwrap();
                }
            }
            file.flush().await.unwrap();
            file.sync_all().await.unwrap();
            StatusCode::NO_CONTENT
        }
    };
    let app = site
        .router()
        .route("/upload/{name}", axum::routing::put(upload));
    let server = Server::start(app).await;
    let client = reqwest::Client::new();
    let data = pattern(12, 5 * 1024 * 1024 + 77);
    let parts = [
        (3 * 1024 * 1024, data.len()),
        (0, 1024 * 1024),
        (2 * 1024 * 1024 + 5, 3 * 1024 * 1024),
        (1024 * 1024, 2 * 1024 * 1024 + 5),
    ];
    for (start, end) in parts {
        let response = bounded(
            "PUT a part",
            client
                .put(server.url("/upload/uploaded.bin"))
                .header("x-offset", start.to_string())
                .body(data[start..end].to_vec())
                .send(),
        )
        .await
        .unwrap();
        assert_eq!(response.status(), StatusCode::NO_CONTENT);
    }
    assert_body("the file on disk", &site.bytes("uploaded.bin"), &data);
    let url = server.url("/uploaded.bin");
    let (_, _, body) = get(&client, &url).await;
    assert_body("the upload served back", &body, &data);
    let (_, _, body) = get_range(&client, &url, "bytes=1048570-3145740").await;
    assert_body("a range of it", &body, &data[1_048_570..=3_145_740]);
}

on_both_schedulers!(
    whole_files,
    ranges,
    conditional_requests,
    directory_precompressed_and_gzip,
    concurrent_ranges,
    file_changed_between_requests,
    offsets_past_4_gib,
    http2_streams,
    uploads_written_at_offsets,
);
