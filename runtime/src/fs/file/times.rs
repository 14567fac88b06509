//! `File::set_times` and `File::set_modified`: timestamps set after the
//! operation in flight, from `&self` as in tokio.

use super::File;
use crate::blocking::join_job;
use crate::fs::FileTimes;
use crate::fs::blocking_io::spawn_fs;
use std::io;
use std::time::SystemTime;

impl File {
    /// Sets the file's access and/or modification times (`futimens`):
    /// those set in `times`; the others stay as they are.
    ///
    /// It first waits for the operation in flight (a buffered write still
    /// going to the file, a read ahead), so that a write cannot land after
    /// the new times and move the modification time again. A write error
    /// found on the way is kept for the next write, flush or sync to
    /// report, as always. Writes started after this future completes change
    /// the modification time again, as on any file. If the future is dropped
    /// after the call reached the blocking pool, the times are still set,
    /// possibly after later writes.
    ///
    /// # Errors
    ///
    /// The error of the call, for example `PermissionDenied` on a file the
    /// process neither owns nor may write.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::fs::FileTimes;
    /// use rt::io::AsyncWriteExt;
    /// use std::time::{Duration, SystemTime};
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let path = std::env::temp_dir().join(format!("rt-set-times-doc-{}", std::process::id()));
    /// let mut file = rt::fs::File::create(&path).await.unwrap();
    /// file.write_all(b"dated").await.unwrap();
    /// let then = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
    /// file.set_times(FileTimes::new().set_accessed(then).set_modified(then)).await.unwrap();
    /// let metadata = file.metadata().await.unwrap();
    /// assert_eq!(metadata.modified().unwrap(), then);
    /// assert_eq!(metadata.accessed().unwrap(), then);
    /// assert_eq!(metadata.len(), 5);
    /// # rt::fs::remove_file(&path).await.unwrap();
    /// # });
    /// ```
    pub async fn set_times(&self, times: FileTimes) -> io::Result<()> {
        // The permit comes back once no operation is in flight; holding
        // it, none starts (that takes `&mut self`).
        let _idle = self
            .idle
            .acquire()
            .await
            .expect("rt: a `File`'s operation permit is never closed");
        let std = self.std.clone();
        join_job(spawn_fs("rt::fs::File::set_times", move || {
            std.set_times(times)
        })?)
        .await
    }

    /// Sets the file's modification time: [`set_times`](File::set_times)
    /// with only that time.
    ///
    /// # Errors
    ///
    /// As [`set_times`](File::set_times).
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::{Duration, SystemTime};
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let path = std::env::temp_dir().join(format!("rt-set-modified-doc-{}", std::process::id()));
    /// let file = rt::fs::File::create(&path).await.unwrap();
    /// let then = SystemTime::UNIX_EPOCH + Duration::from_secs(86_400);
    /// file.set_modified(then).await.unwrap();
    /// assert_eq!(file.metadata().await.unwrap().modified().unwrap(), then);
    /// # rt::fs::remove_file(&path).await.unwrap();
    /// # });
    /// ```
    pub async fn set_modified(&self, time: SystemTime) -> io::Result<()> {
        self.set_times(FileTimes::new().set_modified(time)).await
    }
}
