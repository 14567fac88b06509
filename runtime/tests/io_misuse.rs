//! Sockets need a runtime with the I/O driver; misuse panics naming the fix.

use rt::runtime::Builder;

#[test]
#[should_panic(expected = "enable_io")]
fn socket_outside_a_runtime_panics() {
    let _ = rt::net::UnixStream::pair();
}

#[test]
#[should_panic(expected = "Builder::enable_io()")]
fn socket_on_a_runtime_without_io_panics() {
    let rt = Builder::new_current_thread().build().unwrap();
    rt.block_on(async {
        let _ = rt::net::UdpSocket::bind("127.0.0.1:0").await;
    });
}

#[test]
fn socket_under_enter_works() {
    let rt = rt::runtime::Runtime::new().unwrap();
    let _guard = rt.enter();
    let (a, b) = rt::net::UnixStream::pair().unwrap();
    drop((a, b));
}
