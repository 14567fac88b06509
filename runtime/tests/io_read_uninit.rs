//! The `_uninit` reads (for the tokio facade's `ReadBuf`): each writes the
//! bytes straight into memory that may be uninitialised and reports how
//! many, on every runtime kind; halves reach their stream's through
//! `AsRef`.

mod support;

use rt::io::AsyncWriteExt;
use std::future::poll_fn;
use std::mem::MaybeUninit;
use support::block_on_each;

/// The first `n` bytes of `buf`, which a read initialised.
fn received(buf: &[MaybeUninit<u8>], n: usize) -> Vec<u8> {
    // SAFETY: the read reported `n` bytes written at the front of `buf`.
    buf[..n]
        .iter()
        .map(|b| unsafe { b.assume_init() })
        .collect()
}

#[test]
fn streams_and_their_halves_read_into_uninitialised_memory() {
    block_on_each(|_| async {
        let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let mut client = rt::net::TcpStream::connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        let (server, _) = listener.accept().await.unwrap();
        client.write_all(b"peek+read").await.unwrap();
        let mut buf = [MaybeUninit::<u8>::uninit(); 64];
        let mut peeked = 0;
        while peeked < 9 {
            peeked = poll_fn(|cx| server.poll_peek_uninit(cx, &mut buf))
                .await
                .unwrap();
        }
        assert_eq!(received(&buf, peeked), b"peek+read");
        let (read, _write) = server.into_split();
        let stream: &rt::net::TcpStream = read.as_ref();
        let mut got = Vec::new();
        while got.len() < 9 {
            let n = poll_fn(|cx| stream.poll_read_uninit(cx, &mut buf))
                .await
                .unwrap();
            got.extend(received(&buf, n));
        }
        assert_eq!(got, b"peek+read");
        drop(client);
        assert_eq!(
            poll_fn(|cx| stream.poll_read_uninit(cx, &mut buf))
                .await
                .unwrap(),
            0
        );

        let (mut a, b) = rt::net::UnixStream::pair().unwrap();
        a.write_all(b"unix").await.unwrap();
        let n = poll_fn(|cx| b.poll_read_uninit(cx, &mut buf))
            .await
            .unwrap();
        assert_eq!(received(&buf, n), b"unix");
    });
}

#[test]
fn datagrams_arrive_whole_with_their_sender() {
    block_on_each(|_| async {
        let a = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let b = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
        b.send_to(b"one", a.local_addr().unwrap()).await.unwrap();
        let mut buf = [MaybeUninit::<u8>::uninit(); 64];
        let (n, from) = poll_fn(|cx| a.poll_peek_from_uninit(cx, &mut buf))
            .await
            .unwrap();
        assert_eq!(
            (received(&buf, n), from),
            (b"one".to_vec(), b.local_addr().unwrap())
        );
        let (n, from) = poll_fn(|cx| a.poll_recv_from_uninit(cx, &mut buf))
            .await
            .unwrap();
        assert_eq!(
            (received(&buf, n), from),
            (b"one".to_vec(), b.local_addr().unwrap())
        );
        // A datagram longer than the buffer is cut to it.
        a.connect(b.local_addr().unwrap()).await.unwrap();
        b.send_to(b"truncated", a.local_addr().unwrap())
            .await
            .unwrap();
        let mut small = [MaybeUninit::<u8>::uninit(); 4];
        let n = poll_fn(|cx| a.poll_peek_uninit(cx, &mut small))
            .await
            .unwrap();
        assert_eq!(received(&small, n), b"trun");
        let n = poll_fn(|cx| a.poll_recv_uninit(cx, &mut small))
            .await
            .unwrap();
        assert_eq!(received(&small, n), b"trun");

        let (x, y) = rt::net::UnixDatagram::pair().unwrap();
        x.send(b"unix").await.unwrap();
        let n = poll_fn(|cx| y.poll_recv_uninit(cx, &mut buf))
            .await
            .unwrap();
        assert_eq!(received(&buf, n), b"unix");
    });
}

#[test]
fn pipes_files_and_memory_streams_read_into_uninitialised_memory() {
    block_on_each(|_| async {
        let mut buf = [MaybeUninit::<u8>::uninit(); 64];

        let (mut tx, rx) = rt::net::unix::pipe::pipe().unwrap();
        tx.write_all(b"pipe").await.unwrap();
        drop(tx);
        let n = poll_fn(|cx| rx.poll_read_uninit(cx, &mut buf))
            .await
            .unwrap();
        assert_eq!(received(&buf, n), b"pipe");
        assert_eq!(
            poll_fn(|cx| rx.poll_read_uninit(cx, &mut buf))
                .await
                .unwrap(),
            0
        );

        let mut child = rt::process::Command::new("printf")
            .arg("child")
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let out = child.stdout.take().unwrap();
        let mut got = Vec::new();
        loop {
            let n = poll_fn(|cx| out.poll_read_uninit(cx, &mut buf))
                .await
                .unwrap();
            if n == 0 {
                break;
            }
            got.extend(received(&buf, n));
        }
        assert_eq!(got, b"child");
        child.wait().await.unwrap();

        let path = std::env::temp_dir().join(format!(
            "rt-read-uninit-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        rt::fs::write(&path, b"file").await.unwrap();
        let mut file = rt::fs::File::open(&path).await.unwrap();
        let n = poll_fn(|cx| file.poll_read_uninit(cx, &mut buf))
            .await
            .unwrap();
        assert_eq!(received(&buf, n), b"file");
        rt::fs::remove_file(&path).await.unwrap();

        let (mut a, mut b) = rt::io::duplex(8);
        a.write_all(b"duplex").await.unwrap();
        let n = poll_fn(|cx| b.poll_read_uninit(cx, &mut buf))
            .await
            .unwrap();
        assert_eq!(received(&buf, n), b"duplex");
        let mut simplex = rt::io::SimplexStream::new_unsplit(8);
        simplex.write_all(b"simplex").await.unwrap();
        let n = poll_fn(|cx| simplex.poll_read_uninit(cx, &mut buf))
            .await
            .unwrap();
        assert_eq!(received(&buf, n), b"simplex");
    });
}
