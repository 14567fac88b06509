//! `LocalOptions`: tokio's (empty, extensible) settings for
//! [`Builder::build_local`](super::Builder::build_local); rt's
//! `build_local` takes none.

use std::marker::PhantomData;

/// Settings for [`Builder::build_local`](super::Builder::build_local).
/// There are none yet (in tokio as here); the type is `!Send`, like the
/// runtime it builds.
///
/// # Examples
///
/// ```
/// let rt = tokio::runtime::Builder::new_current_thread()
///     .build_local(tokio::runtime::LocalOptions::default())
///     .unwrap();
/// # drop(rt);
/// ```
#[derive(Default, Debug)]
#[non_exhaustive]
pub struct LocalOptions {
    _not_send: PhantomData<*mut u8>,
}
