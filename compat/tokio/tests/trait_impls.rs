//! The std trait impls tokio's public types have (tokio 1.54's `impl ...
//! for` lines and `derive`s, read from its source), which crates call
//! through (`UnixListener::try_from(std)` for socket activation,
//! `OpenOptions::from(std)` after `OpenOptionsExt`, `async_fd.as_raw_fd()`).
//! Each missing impl is a compile error in the dependent crate, so most of
//! the checks here are compile-time; the tests then use the conversions.

use std::os::fd::{AsFd, AsRawFd, FromRawFd, IntoRawFd, OwnedFd};

fn fd<T: AsFd + AsRawFd>() {}
fn raw_owned<T: FromRawFd + IntoRawFd>() {}
fn from<A, B: From<A>>() {}
fn try_from<A, B: TryFrom<A>>() {}
fn clone_eq<T: Clone + PartialEq + Eq>() {}
fn ord<T: Ord>() {}

#[test]
fn conversions_tokio_has() {
    from::<std::fs::OpenOptions, tokio::fs::OpenOptions>();
    from::<OwnedFd, tokio::fs::File>();
    try_from::<std::os::unix::net::UnixListener, tokio::net::UnixListener>();
    raw_owned::<tokio::net::UnixSocket>();
    raw_owned::<tokio::net::TcpSocket>();
    fd::<tokio::io::unix::AsyncFd<std::os::unix::net::UnixStream>>();
    clone_eq::<tokio::sync::SetOnce<u8>>();
    ord::<tokio::io::Ready>();
}

#[test]
fn unix_listener_try_from_std() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let path = std::env::temp_dir().join(format!("facade-impls-{}.sock", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let std_listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
        std_listener.set_nonblocking(true).unwrap();
        let listener = tokio::net::UnixListener::try_from(std_listener).unwrap();
        let _client = tokio::net::UnixStream::connect(&path).await.unwrap();
        listener.accept().await.unwrap();
        std::fs::remove_file(&path).unwrap();
    });
}

#[test]
fn unix_socket_raw_fd_round_trip() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let socket = tokio::net::UnixSocket::new_stream().unwrap();
        let raw = socket.into_raw_fd();
        // SAFETY: `raw` is the open socket `into_raw_fd` just gave up.
        let socket = unsafe { tokio::net::UnixSocket::from_raw_fd(raw) };
        assert_eq!(socket.as_raw_fd(), raw);
    });
}

#[test]
fn async_fd_is_its_descriptor() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
        a.set_nonblocking(true).unwrap();
        let raw = a.as_raw_fd();
        let async_fd = tokio::io::unix::AsyncFd::new(a).unwrap();
        assert_eq!(async_fd.as_raw_fd(), raw);
        assert_eq!(async_fd.as_fd().as_raw_fd(), raw);
    });
}

#[test]
fn file_from_owned_fd_and_options_from_std() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        use std::os::unix::fs::OpenOptionsExt;
        use tokio::io::AsyncReadExt;
        let path = std::env::temp_dir().join(format!("facade-impls-{}.txt", std::process::id()));
        std::fs::write(&path, b"owned").unwrap();
        let fd = OwnedFd::from(std::fs::File::open(&path).unwrap());
        let mut file = tokio::fs::File::from(fd);
        let mut text = String::new();
        file.read_to_string(&mut text).await.unwrap();
        assert_eq!(text, "owned");

        let mut std_options = std::fs::OpenOptions::new();
        // No extra open flag: only that an `OpenOptionsExt` setter's
        // options convert.
        std_options.read(true).custom_flags(0);
        let mut file = tokio::fs::OpenOptions::from(std_options)
            .open(&path)
            .await
            .unwrap();
        text.clear();
        file.read_to_string(&mut text).await.unwrap();
        assert_eq!(text, "owned");
        std::fs::remove_file(&path).unwrap();
    });
}

#[test]
fn set_once_clones_and_compares_values() {
    let set = tokio::sync::SetOnce::new();
    let unset = tokio::sync::SetOnce::<u8>::new();
    set.set(3u8).unwrap();
    assert_eq!(set.clone().get(), Some(&3));
    assert!(set == tokio::sync::SetOnce::from(3));
    assert!(unset == tokio::sync::SetOnce::new());
    assert!(set != unset);
}

#[test]
fn ready_orders_as_tokio_bits() {
    use tokio::io::Ready;
    let mut sets = [Ready::WRITABLE, Ready::EMPTY, Ready::READABLE];
    sets.sort();
    assert_eq!(sets, [Ready::EMPTY, Ready::READABLE, Ready::WRITABLE]);
    // tokio's bits put `PRIORITY` (0b1_0000) below `ERROR` (0b10_0000).
    assert!(Ready::PRIORITY < Ready::ERROR);
    assert!(Ready::READABLE | Ready::PRIORITY < Ready::ERROR);
}
