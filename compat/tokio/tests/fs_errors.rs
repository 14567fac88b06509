//! `fs` errors are the OS's, as tokio's are: `raw_os_error` gives the
//! errno. tower-http's `ServeDir` tells a path through a file (a 404) from
//! a server error by `raw_os_error() == Some(20)` (`ENOTDIR`) on the error
//! of `File::open` or `fs::metadata`.

mod support;

use std::io::ErrorKind;

// errno values, the same on Linux, macOS and the BSDs (the facade is
// unix-only; `libc` is no dependency of its tests).
const ENOENT: i32 = 2;
const EEXIST: i32 = 17;
const ENOTDIR: i32 = 20;

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("facade-fs-errors-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Before, every error below had `raw_os_error() == None`: rt adds the
/// path to the message, wrapping the OS error.
#[test]
fn path_errors_keep_their_os_error_code() {
    support::on_both_flavours(|| async {
        let dir = scratch("codes");
        let file = dir.join("file");
        std::fs::write(&file, b"a file").unwrap();
        let through_file = file.join("child");
        let missing = dir.join("missing");
        let enotdir = Some(ENOTDIR);
        let enoent = Some(ENOENT);

        let err = tokio::fs::File::open(&through_file).await.unwrap_err();
        assert_eq!(err.raw_os_error(), enotdir, "{err}");
        // The error is the OS's own, message included.
        assert_eq!(
            err.to_string(),
            std::io::Error::from_raw_os_error(ENOTDIR).to_string()
        );
        let err = tokio::fs::metadata(&through_file).await.unwrap_err();
        assert_eq!(err.raw_os_error(), enotdir, "{err}");
        let err = tokio::fs::File::create(&through_file).await.unwrap_err();
        assert_eq!(err.raw_os_error(), enotdir, "{err}");
        let err = tokio::fs::read(&missing).await.unwrap_err();
        assert_eq!(err.raw_os_error(), enoent, "{err}");
        let err = tokio::fs::read_to_string(&missing).await.unwrap_err();
        assert_eq!(err.raw_os_error(), enoent, "{err}");
        let err = tokio::fs::read_dir(&missing).await.unwrap_err();
        assert_eq!(err.raw_os_error(), enoent, "{err}");
        let err = tokio::fs::rename(&missing, dir.join("to"))
            .await
            .unwrap_err();
        assert_eq!(err.raw_os_error(), enoent, "{err}");
        let err = tokio::fs::copy(&missing, dir.join("to")).await.unwrap_err();
        assert_eq!(err.raw_os_error(), enoent, "{err}");
        let err = tokio::fs::remove_file(&missing).await.unwrap_err();
        assert_eq!(err.raw_os_error(), enoent, "{err}");
        let err = tokio::fs::create_dir(&file).await.unwrap_err();
        assert_eq!(err.raw_os_error(), Some(EEXIST), "{err}");
        let err = tokio::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&file)
            .await
            .unwrap_err();
        assert_eq!(err.raw_os_error(), Some(EEXIST), "{err}");

        // An error that is no OS error keeps its kind.
        std::fs::write(&file, [0xff, 0xfe]).unwrap();
        let err = tokio::fs::read_to_string(&file).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidData, "{err}");

        std::fs::remove_dir_all(&dir).unwrap();
    });
}
