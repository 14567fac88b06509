//! Socket errors are the OS's, as tokio's are: `raw_os_error` gives the
//! errno where rt names the path or device in the message (wrapping the
//! OS error). A server that finds its socket path taken (`EADDRINUSE`)
//! removes a stale file and binds again by that code.

// errno values on Linux (`libc` is no dependency of the facade's tests).
const EPERM: i32 = 1;
const ENODEV: i32 = 19;
const EADDRINUSE: i32 = 98;

/// Before, `raw_os_error()` was `None` for each.
#[test]
fn socket_errors_keep_their_os_error_code() {
    let dir = std::env::temp_dir().join(format!("facade-net-errors-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("socket");
    let rt = rt::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let taken = tokio::net::UnixSocket::new_stream().unwrap();
        taken.bind(&path).unwrap();
        let second = tokio::net::UnixSocket::new_stream().unwrap();
        let error = second.bind(&path).unwrap_err();
        assert_eq!(error.raw_os_error(), Some(EADDRINUSE), "{error}");
        assert_eq!(error.kind(), std::io::ErrorKind::AddrInUse);

        // ENODEV as root, EPERM otherwise.
        let device = Some(&b"no-such-dev0"[..]);
        let tcp = tokio::net::TcpSocket::new_v4().unwrap();
        let error = tcp.bind_device(device).unwrap_err();
        assert!(
            matches!(error.raw_os_error(), Some(ENODEV | EPERM)),
            "{error}"
        );
        let udp = tokio::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let error = udp.bind_device(device).unwrap_err();
        assert!(
            matches!(error.raw_os_error(), Some(ENODEV | EPERM)),
            "{error}"
        );
    });
    std::fs::remove_dir_all(&dir).unwrap();
}
