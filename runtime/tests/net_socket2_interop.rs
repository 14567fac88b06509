//! Every socket type and `fs::File` lend their descriptor (`AsFd`,
//! `AsRawFd`), so `socket2::SockRef` reaches what rt has no method for.

mod support;

use rt::net::{TcpListener, TcpSocket, UdpSocket, UnixDatagram, UnixListener, UnixStream};
use socket2::{SockRef, Type};
use std::os::fd::{AsFd, AsRawFd, RawFd};
use support::{on_both, tcp_pair};

/// The descriptor, checked to be the same through both traits.
fn descriptor<T: AsFd + AsRawFd>(io: &T) -> RawFd {
    assert_eq!(io.as_fd().as_raw_fd(), io.as_raw_fd());
    io.as_raw_fd()
}

/// The socket type `socket2` sees through the descriptor.
fn socket_type<T: AsFd + AsRawFd>(socket: &T) -> Type {
    descriptor(socket);
    SockRef::from(socket).r#type().unwrap()
}

#[test]
fn every_socket_lends_its_descriptor_to_socket2() {
    on_both(|| async {
        let (client, _server) = tcp_pair().await;
        assert_eq!(socket_type(&client), Type::STREAM);
        let peer = SockRef::from(&client).peer_addr().unwrap().as_socket();
        assert_eq!(peer, Some(client.peer_addr().unwrap()));

        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        assert_eq!(socket_type(&listener), Type::STREAM);
        let socket = TcpSocket::new_v4().unwrap();
        assert_eq!(socket_type(&socket), Type::STREAM);

        let udp = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        assert_eq!(socket_type(&udp), Type::DGRAM);
        let local = SockRef::from(&udp).local_addr().unwrap().as_socket();
        assert_eq!(local, Some(udp.local_addr().unwrap()));

        let (a, _b) = UnixStream::pair().unwrap();
        assert_eq!(socket_type(&a), Type::STREAM);
        let (x, _y) = UnixDatagram::pair().unwrap();
        assert_eq!(socket_type(&x), Type::DGRAM);
        let path = std::env::temp_dir().join(format!("rt-socket2-{}.sock", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let unix_listener = UnixListener::bind(&path).unwrap();
        assert_eq!(socket_type(&unix_listener), Type::STREAM);
        std::fs::remove_file(&path).unwrap();
    });
}

#[test]
fn a_file_lends_its_descriptor() {
    on_both(|| async {
        let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
        let file = rt::fs::File::open(manifest).await.unwrap();
        descriptor(&file);
        let copy = std::fs::File::from(file.as_fd().try_clone_to_owned().unwrap());
        let expected = std::fs::metadata(manifest).unwrap().len();
        assert_eq!(copy.metadata().unwrap().len(), expected);
    });
}
