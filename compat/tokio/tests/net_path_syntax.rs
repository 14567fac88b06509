//! The sockets' tokio methods are inherent, so path syntax
//! (`TcpStream::set_nodelay(&s, true)`, as tokio's own tests write) works,
//! and their futures are `Send + Sync` where tokio's are.

mod support;

use std::future::Future;
use std::io::ErrorKind;
use std::net::{Shutdown, SocketAddr};
use tokio::io::Interest;
use tokio::net::{TcpListener, TcpStream, UdpSocket, UnixDatagram, UnixListener, UnixStream};

fn send_sync<F: Future + Send + Sync>(_: F) {}

#[test]
fn tcp_methods_by_path() {
    support::on_both_flavours(|| async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = TcpListener::local_addr(&listener).unwrap();
        TcpListener::set_ttl(&listener, 42).unwrap();
        assert_eq!(TcpListener::ttl(&listener).unwrap(), 42);
        let client = TcpStream::connect(addr).await.unwrap();
        let (server, peer) = listener.accept().await.unwrap();
        assert_eq!(TcpStream::local_addr(&client).unwrap(), peer);
        assert_eq!(TcpStream::peer_addr(&client).unwrap(), addr);
        TcpStream::set_nodelay(&client, true).unwrap();
        assert!(TcpStream::nodelay(&client).unwrap());
        TcpStream::set_linger(&client, None).unwrap();
        assert_eq!(TcpStream::linger(&client).unwrap(), None);
        TcpStream::writable(&client).await.unwrap();
        assert_eq!(TcpStream::try_write(&client, b"hey").unwrap(), 3);
        let mut buf = [0; 8];
        assert_eq!(TcpStream::peek(&server, &mut buf).await.unwrap(), 3);
        let ready = TcpStream::ready(&server, Interest::READABLE).await.unwrap();
        assert!(ready.is_readable());
        assert_eq!(TcpStream::try_read(&server, &mut buf).unwrap(), 3);
        assert_eq!(&buf[..3], b"hey");
        let err = TcpStream::try_read(&server, &mut buf).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::WouldBlock);
        assert!(TcpStream::take_error(&server).unwrap().is_none());

        let (read, write) = server.into_split();
        assert_eq!(
            tokio::net::tcp::OwnedReadHalf::peer_addr(&read).unwrap(),
            peer
        );
        assert_eq!(
            tokio::net::tcp::OwnedWriteHalf::local_addr(&write).unwrap(),
            addr
        );
        assert_eq!(
            tokio::net::tcp::OwnedWriteHalf::try_write(&write, b"back").unwrap(),
            4
        );
        TcpStream::readable(&client).await.unwrap();
        assert_eq!(TcpStream::try_read(&client, &mut buf).unwrap(), 4);
        assert_eq!(&buf[..4], b"back");

        send_sync(TcpStream::peek(&client, &mut buf));
        send_sync(TcpStream::ready(&client, Interest::WRITABLE));
        send_sync(TcpStream::readable(&client));
        send_sync(TcpStream::writable(&client));
        send_sync(tokio::net::tcp::OwnedReadHalf::readable(&read));
    });
}

#[test]
fn udp_methods_by_path() {
    support::on_both_flavours(|| async {
        let a = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let b = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let (a_addr, b_addr) = (a.local_addr().unwrap(), b.local_addr().unwrap());
        UdpSocket::connect(&a, b_addr).await.unwrap();
        assert_eq!(UdpSocket::peer_addr(&a).unwrap(), b_addr);
        assert_eq!(UdpSocket::send(&a, b"one").await.unwrap(), 3);
        let mut buf = [0; 8];
        let (n, from) = UdpSocket::peek_from(&b, &mut buf).await.unwrap();
        assert_eq!((&buf[..n], from), (&b"one"[..], a_addr));
        assert_eq!(UdpSocket::peek_sender(&b).await.unwrap(), a_addr);
        let (n, from) = UdpSocket::recv_from(&b, &mut buf).await.unwrap();
        assert_eq!((&buf[..n], from), (&b"one"[..], a_addr));
        UdpSocket::send_to(&b, b"two", a_addr).await.unwrap();
        assert_eq!(UdpSocket::recv(&a, &mut buf).await.unwrap(), 3);
        assert_eq!(&buf[..3], b"two");
        UdpSocket::set_broadcast(&a, true).unwrap();
        assert!(UdpSocket::broadcast(&a).unwrap());
        let err = UdpSocket::try_recv(&a, &mut buf).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::WouldBlock);

        let target: SocketAddr = b_addr;
        send_sync(UdpSocket::connect(&a, target));
        send_sync(UdpSocket::send(&a, b""));
        send_sync(UdpSocket::send_to(&a, b"", target));
        send_sync(UdpSocket::recv(&a, &mut buf));
        send_sync(UdpSocket::recv_from(&b, &mut [0; 1]));
        send_sync(UdpSocket::peek_from(&b, &mut [0; 1]));
        send_sync(UdpSocket::ready(&a, Interest::READABLE));
        send_sync(UdpSocket::readable(&a));
        send_sync(UdpSocket::writable(&a));
        send_sync(tokio::net::lookup_host(target));
    });
}

#[test]
fn unix_methods_by_path() {
    support::on_both_flavours(|| async {
        let dir = std::env::temp_dir().join(format!("rt-path-syntax-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("s{:?}", std::thread::current().id()).replace(['(', ')'], ""));
        let listener = UnixListener::bind(&path).unwrap();
        assert_eq!(
            UnixListener::local_addr(&listener).unwrap().as_pathname(),
            Some(&*path)
        );
        let client = UnixStream::connect(&path).await.unwrap();
        let (server, _) = listener.accept().await.unwrap();
        let cred = UnixStream::peer_cred(&server).unwrap();
        assert_eq!(cred.pid(), Some(std::process::id() as i32));
        UnixStream::writable(&client).await.unwrap();
        assert_eq!(UnixStream::try_write(&client, b"unix").unwrap(), 4);
        UnixStream::readable(&server).await.unwrap();
        let mut buf = [0; 8];
        assert_eq!(UnixStream::try_read(&server, &mut buf).unwrap(), 4);
        send_sync(UnixStream::ready(&server, Interest::READABLE));

        let (a, b) = UnixDatagram::pair().unwrap();
        assert_eq!(UnixDatagram::send(&a, b"dg").await.unwrap(), 2);
        assert_eq!(UnixDatagram::recv(&b, &mut buf).await.unwrap(), 2);
        UnixDatagram::shutdown(&a, Shutdown::Write).unwrap();
        let err = UnixDatagram::send(&a, b"late").await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::BrokenPipe);
        send_sync(UnixDatagram::recv_from(&b, &mut buf));
        send_sync(UnixDatagram::readable(&b));
        std::fs::remove_dir_all(&dir).ok();
    });
}

#[test]
fn pipe_methods_by_path() {
    use tokio::net::unix::pipe::{Receiver, Sender};
    support::on_both_flavours(|| async {
        let (tx, rx) = tokio::net::unix::pipe::pipe().unwrap();
        Sender::writable(&tx).await.unwrap();
        assert_eq!(Sender::try_write(&tx, b"p").unwrap(), 1);
        Receiver::readable(&rx).await.unwrap();
        let mut buf = [0; 4];
        assert_eq!(Receiver::try_read(&rx, &mut buf).unwrap(), 1);
        let err = Receiver::try_io(&rx, || Err::<(), _>(ErrorKind::WouldBlock.into())).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::WouldBlock);
    });
}
