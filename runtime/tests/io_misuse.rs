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

/// The file of the panic that `f` raises on this thread, and its line.
fn panic_location(f: impl FnOnce() + std::panic::UnwindSafe) -> (String, u32) {
    use std::sync::{Arc, Mutex};
    // The panic hook is the process's: one swap at a time, and only this
    // thread's panic is recorded (other tests of this binary panic too).
    static HOOK: Mutex<()> = Mutex::new(());
    let _serial = HOOK.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let seen = Arc::new(Mutex::new(None));
    let previous = std::panic::take_hook();
    let me = std::thread::current().id();
    let record = seen.clone();
    std::panic::set_hook(Box::new(move |info| {
        if std::thread::current().id() == me {
            let at = info.location().expect("a panic location");
            *record.lock().unwrap() = Some((at.file().to_owned(), at.line()));
        }
    }));
    let result = std::panic::catch_unwind(f);
    std::panic::set_hook(previous);
    assert!(result.is_err(), "expected a panic");
    let location = seen.lock().unwrap().take();
    location.expect("the hook saw the panic")
}

/// Each constructor that registers a socket, called on a runtime without
/// I/O, panics at the caller's line (`#[track_caller]` all the way down).
#[test]
fn socket_constructors_panic_at_the_callers_line() {
    let dir = std::env::temp_dir().join(format!("rt-io-misuse-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let tcp = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = tcp.local_addr().unwrap();
    let stream = std::net::TcpStream::connect(addr).unwrap();
    let udp = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let unix_listener = std::os::unix::net::UnixListener::bind(dir.join("a")).unwrap();
    let (unix_stream, _peer) = std::os::unix::net::UnixStream::pair().unwrap();
    let (unix_datagram, _peer2) = std::os::unix::net::UnixDatagram::pair().unwrap();
    let rt = Builder::new_current_thread().build().unwrap();
    type Case = Box<dyn FnOnce() + std::panic::UnwindSafe>;
    let on_rt =
        |f: Case| panic_location(std::panic::AssertUnwindSafe(|| rt.block_on(async { f() })));
    #[rustfmt::skip]
    let cases: Vec<(&str, u32, Case)> = vec![
        ("TcpListener::from_std", line!(), Box::new(move || { let _ = rt::net::TcpListener::from_std(tcp); })),
        ("TcpStream::from_std", line!(), Box::new(move || { let _ = rt::net::TcpStream::from_std(stream); })),
        ("UdpSocket::from_std", line!(), Box::new(move || { let _ = rt::net::UdpSocket::from_std(udp); })),
        ("UnixListener::from_std", line!(), Box::new(move || { let _ = rt::net::UnixListener::from_std(unix_listener); })),
        ("UnixListener::bind", line!(), { let path = dir.join("b"); Box::new(move || { let _ = rt::net::UnixListener::bind(path); }) }),
        ("UnixStream::from_std", line!(), Box::new(move || { let _ = rt::net::UnixStream::from_std(unix_stream); })),
        ("UnixDatagram::from_std", line!(), Box::new(move || { let _ = rt::net::UnixDatagram::from_std(unix_datagram); })),
        ("UnixDatagram::bind", line!(), { let path = dir.join("c"); Box::new(move || { let _ = rt::net::UnixDatagram::bind(path); }) }),
        ("signal", line!(), Box::new(|| { let _ = rt::signal::unix::signal(rt::signal::unix::SignalKind::from_raw(-1)); })),
    ];
    for (name, line, case) in cases {
        assert_eq!(on_rt(case), (file!().to_owned(), line), "{name}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
