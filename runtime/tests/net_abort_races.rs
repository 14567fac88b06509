//! Sockets torn down on one thread while another waits on them or
//! delivers their event: an accept or a read aborted as its connection or
//! its bytes arrive loses nothing (the next accept or read gets it), and
//! a reader of a shared stream is woken while another worker drops its
//! own handle on the stream. On a two-worker runtime, many rounds each.

mod support;

use rt::io::AsyncWriteExt;
use rt::net::{TcpListener, TcpStream};
use std::io::ErrorKind;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use support::{Kind, spawn_all_waiting};

const ROUNDS: usize = 2000;

/// One byte from a stream shared by reference (`readable`, then
/// `try_read`, as tokio users write it).
async fn read_byte(stream: &TcpStream) -> std::io::Result<u8> {
    loop {
        stream.readable().await?;
        let mut byte = [0u8; 1];
        match stream.try_read(&mut byte) {
            Ok(1) => return Ok(byte[0]),
            Ok(_) => return Err(ErrorKind::UnexpectedEof.into()),
            Err(e) if e.kind() == ErrorKind::WouldBlock => {}
            Err(e) => return Err(e),
        }
    }
}

/// An acceptor aborted from another task as a client connects: the
/// connection is either the acceptor's result (it finished first) or the
/// next acceptor's, never lost, and the listener's waiter list holds no
/// stale place (the next accept waits and wakes as usual).
#[test]
fn accept_aborted_as_its_connection_arrives() {
    let rt = Kind::MultiThread(2).build();
    let metrics = rt.metrics();
    rt.block_on(async {
        let listener = Arc::new(TcpListener::bind("127.0.0.1:0").await.unwrap());
        let addr = listener.local_addr().unwrap();
        let baseline = metrics.io_driver_registrations();
        let (mut by_aborted, mut by_next) = (0, 0);
        for round in 0..ROUNDS {
            let acceptor = {
                let listener = listener.clone();
                spawn_all_waiting(vec![async move { listener.accept().await }])
                    .await
                    .pop()
                    .unwrap()
            };
            // The connect and the abort race on the two workers.
            let connect = rt::spawn(TcpStream::connect(addr));
            let abort = acceptor.abort_handle();
            rt::spawn(async move { abort.abort() }).await.unwrap();
            let client = connect.await.unwrap().unwrap();
            let server = match acceptor.await {
                Ok(accepted) => {
                    by_aborted += 1;
                    accepted.unwrap().0
                }
                Err(err) => {
                    assert!(err.is_cancelled(), "round {round}: {err}");
                    by_next += 1;
                    listener.accept().await.unwrap().0
                }
            };
            assert_eq!(server.peer_addr().unwrap(), client.local_addr().unwrap());
        }
        eprintln!("accepted by the aborted task {by_aborted} times, by the next {by_next}");
        assert_eq!(metrics.io_driver_registrations(), baseline);
    });
}

/// A reader aborted from another task as its peer writes: the bytes are
/// either the reader's (it finished first) or still in the stream for the
/// next read, and the stream's registration goes with the task.
#[test]
fn read_aborted_as_its_bytes_arrive() {
    let rt = Kind::MultiThread(2).build();
    let metrics = rt.metrics();
    rt.block_on(async {
        let baseline = metrics.io_driver_registrations();
        let (mut by_aborted, mut by_next) = (0, 0);
        for round in 0..ROUNDS {
            let (mut client, server) = support::tcp_pair().await;
            support::clear_assumed_readability(&server);
            let server = Arc::new(server);
            let reader = {
                let server = server.clone();
                spawn_all_waiting(vec![async move { read_byte(&server).await }])
                    .await
                    .pop()
                    .unwrap()
            };
            let write = rt::spawn(async move {
                client.write_all(&[round as u8]).await.unwrap();
                client
            });
            let abort = reader.abort_handle();
            rt::spawn(async move { abort.abort() }).await.unwrap();
            let _client = write.await.unwrap();
            let byte = match reader.await {
                Ok(read) => {
                    by_aborted += 1;
                    read.unwrap()
                }
                Err(err) => {
                    assert!(err.is_cancelled(), "round {round}: {err}");
                    by_next += 1;
                    read_byte(&server).await.unwrap()
                }
            };
            assert_eq!(byte, round as u8);
        }
        eprintln!("read by the aborted task {by_aborted} times, by the next {by_next}");
        assert_eq!(metrics.io_driver_registrations(), baseline);
    });
}

/// A task awaits `readable()` on its clone of a shared stream while a
/// task on the other worker drops its own clone and the peer writes: the
/// waiter is woken, and the stream's registration goes with the last
/// clone.
#[test]
fn readable_on_a_shared_stream_while_another_clone_drops() {
    let rt = Kind::MultiThread(2).build();
    let metrics = rt.metrics();
    rt.block_on(async {
        let baseline = metrics.io_driver_registrations();
        let woken = Arc::new(AtomicUsize::new(0));
        for _ in 0..ROUNDS {
            let (mut client, server) = support::tcp_pair().await;
            support::clear_assumed_readability(&server);
            let server = Arc::new(server);
            let waiter = {
                let server = server.clone();
                let woken = woken.clone();
                spawn_all_waiting(vec![async move {
                    server.readable().await.unwrap();
                    woken.fetch_add(1, Ordering::SeqCst);
                }])
                .await
                .pop()
                .unwrap()
            };
            let dropper = rt::spawn(async move { drop(server) });
            client.write_all(b"x").await.unwrap();
            dropper.await.unwrap();
            waiter.await.unwrap();
        }
        assert_eq!(woken.load(Ordering::SeqCst), ROUNDS);
        assert_eq!(metrics.io_driver_registrations(), baseline);
    });
}
