//! What the I/O enums of the sockets a simulation takes over share
//! (feature `sim`): `TcpIo` (`tcp/dispatch.rs`) and `UdpIo`
//! (`udp/dispatch.rs`), each a real registration or a simulated socket.
//! `each_kind!` matches an enum once and runs the same call on either
//! variant; `sim_readiness!` writes the readiness operations every socket
//! method and macro calls (`ready`, `ready_for`, `poll_ready`), the
//! closure forms only a real socket can run (`try_io_for`,
//! `async_io_for`: `Unsupported` on a simulated one, naming the API), and
//! `real`, the real registration or that refusal.

/// `each_kind!(Io, value, |x| body)`: `body` on whichever variant `value`
/// (an `&Io`) holds.
macro_rules! each_kind {
    ($Io:ident, $io:expr, |$x:ident| $body:expr) => {
        match $io {
            $Io::Real($x) => $body,
            $Io::Sim($x) => $body,
        }
    };
}

/// `sim_readiness!(Io, MioType, "PublicType")`: see the module docs.
macro_rules! sim_readiness {
    ($Io:ident, $Sys:ty, $public:literal) => {
        impl $Io {
            // The readiness futures: an `async fn` each, measured cheaper
            // than returning an `Either` of the two futures, whose `poll`
            // the compiler did not inline.

            /// Waits for readiness in `direction`, shown in the task dump
            /// as `site` (a simulated socket's wait is not recorded).
            pub(crate) async fn ready_as(
                &self,
                direction: ::rt_reactor::Direction,
                site: crate::task::waits::Site,
            ) -> ::std::io::Result<()> {
                match self {
                    $Io::Real(real) => real.ready_as(direction, site).await.map(drop),
                    $Io::Sim(sim) => crate::sim::SimReadiness::ready(sim, direction).await,
                }
            }

            pub(crate) async fn ready_for(
                &self,
                interest: ::rt_reactor::Interest,
            ) -> ::std::io::Result<::rt_reactor::Ready> {
                match self {
                    $Io::Real(real) => real.ready_for(interest).await,
                    $Io::Sim(sim) => crate::sim::SimReadiness::ready_for(sim, interest).await,
                }
            }

            #[inline]
            pub(crate) fn poll_ready(
                &self,
                cx: &mut ::std::task::Context<'_>,
                direction: ::rt_reactor::Direction,
            ) -> ::std::task::Poll<::std::io::Result<()>> {
                match self {
                    $Io::Real(real) => real.poll_ready(cx, direction).map_ok(drop),
                    $Io::Sim(sim) => crate::sim::SimReadiness::poll_ready(sim, cx, direction),
                }
            }

            pub(crate) fn try_io_for<R>(
                &self,
                interest: ::rt_reactor::Interest,
                op: impl FnOnce(&$Sys) -> ::std::io::Result<R>,
            ) -> ::std::io::Result<R> {
                self.real(concat!("`", $public, "::try_io`"))?
                    .try_io_for(interest, op)
            }

            pub(crate) async fn async_io_for<R>(
                &self,
                interest: ::rt_reactor::Interest,
                op: impl FnMut(&$Sys) -> ::std::io::Result<R>,
            ) -> ::std::io::Result<R> {
                self.real(concat!("`", $public, "::async_io`"))?
                    .async_io_for(interest, op)
                    .await
            }

            /// The real registration, for the methods only it supports;
            /// an `Unsupported` error naming `api` on a simulated socket.
            pub(super) fn real(
                &self,
                api: &str,
            ) -> ::std::io::Result<&crate::io::registered::Registered<$Sys>> {
                match self {
                    $Io::Real(real) => Ok(real),
                    $Io::Sim(_) => Err(crate::sim::unsupported(api)),
                }
            }
        }
    };
}

pub(crate) use each_kind;
pub(crate) use sim_readiness;
