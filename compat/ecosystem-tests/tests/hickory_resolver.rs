//! hickory-resolver on rt through the facade: its tokio connection
//! provider (the facade's UDP and TCP sockets and timer) asking a DNS
//! responder written here, on the facade's sockets too. A queries answered
//! over UDP, concurrently; a query whose first packet the responder drops,
//! answered when the resolver's timeout resends it; an answer too long for
//! UDP, truncated there and fetched again over TCP.

use hickory_resolver::config::{NameServerConfig, ResolverConfig, ResolverOpts};
use hickory_resolver::name_server::TokioConnectionProvider;
use hickory_resolver::proto::ProtoErrorKind;
use hickory_resolver::proto::xfer::Protocol;
use hickory_resolver::{Resolver, TokioResolver};
use rt_ecosystem_tests::{assert_rt_runs, bounded, rt_tasks_spawned_in};
use std::net::{Ipv4Addr, SocketAddr};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, UdpSocket};
use tokio::sync::mpsc;

/// One question of a query, as the responder read it.
#[derive(Debug, Clone, PartialEq)]
struct Question {
    name: String,
    qtype: u16,
    over_tcp: bool,
}

/// The question's name (lowercase, dot-terminated), its type and where the
/// question section ends.
fn parse_question(query: &[u8]) -> (String, u16, usize) {
    let mut at = 12;
    let mut name = String::new();
    loop {
        let len = usize::from(query[at]);
        at += 1;
        if len == 0 {
            break;
        }
        name.push_str(&String::from_utf8_lossy(&query[at..at + len]).to_lowercase());
        name.push('.');
        at += len;
    }
    let qtype = u16::from_be_bytes([query[at], query[at + 1]]);
    (name, qtype, at + 4)
}

/// The answer to `query`: its id and question, one A record for each of
/// `addresses` (a name compressed to a pointer at the question), and the
/// truncation bit if `truncated` (then no records).
fn answer(query: &[u8], addresses: &[Ipv4Addr], truncated: bool) -> Vec<u8> {
    let (_, _, question_end) = parse_question(query);
    let records = if truncated { &[][..] } else { addresses };
    let mut flags: u16 = 0x8180; // a response, recursion desired and available
    if truncated {
        flags |= 0x0200;
    }
    let mut out = Vec::new();
    out.extend_from_slice(&query[..2]);
    out.extend_from_slice(&flags.to_be_bytes());
    out.extend_from_slice(&1u16.to_be_bytes());
    out.extend_from_slice(&(records.len() as u16).to_be_bytes());
    out.extend_from_slice(&[0, 0, 0, 0]);
    out.extend_from_slice(&query[12..question_end]);
    for address in records {
        out.extend_from_slice(&[0xc0, 12, 0, 1, 0, 1]); // name at 12, A, IN
        out.extend_from_slice(&300u32.to_be_bytes());
        out.extend_from_slice(&4u16.to_be_bytes());
        out.extend_from_slice(&address.octets());
    }
    out
}

/// The zone: `hostN.test.` is 10.0.0.N; `many.test.` has 100 addresses,
/// too many for a 512-byte UDP answer.
fn addresses(name: &str) -> Vec<Ipv4Addr> {
    if name == "many.test." {
        return (1..=100).map(|i| Ipv4Addr::new(10, 1, 0, i)).collect();
    }
    let n = name
        .strip_prefix("host")
        .and_then(|rest| rest.strip_suffix(".test."))
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    vec![Ipv4Addr::new(10, 0, 0, n)]
}

/// A responder on UDP and TCP at one address. It drops the first UDP query
/// for `drop.test.` unanswered and truncates the UDP answer for
/// `many.test.`; every question it reads is sent to the returned channel.
async fn responder() -> (SocketAddr, mpsc::UnboundedReceiver<Question>) {
    // The TCP listener takes the UDP socket's port (another process can
    // hold that TCP port: then another pair).
    let (udp, tcp) = loop {
        let udp = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        if let Ok(tcp) = TcpListener::bind(udp.local_addr().unwrap()).await {
            break (udp, tcp);
        }
    };
    let addr = udp.local_addr().unwrap();
    let (questions_tx, questions) = mpsc::unbounded_channel();
    let udp_task = tokio::spawn({
        let questions_tx = questions_tx.clone();
        async move {
            let mut dropped = false;
            let mut buf = [0; 512];
            loop {
                let (len, from) = udp.recv_from(&mut buf).await.unwrap();
                let query = &buf[..len];
                let (name, qtype, _) = parse_question(query);
                let _ = questions_tx.send(Question {
                    name: name.clone(),
                    qtype,
                    over_tcp: false,
                });
                if name == "drop.test." && !dropped {
                    dropped = true;
                    continue;
                }
                let truncated = name == "many.test.";
                let reply = answer(query, &addresses(&name), truncated);
                udp.send_to(&reply, from).await.unwrap();
            }
        }
    });
    assert_rt_runs(udp_task.id());
    tokio::spawn(async move {
        loop {
            let (mut stream, _) = tcp.accept().await.unwrap();
            let questions_tx = questions_tx.clone();
            tokio::spawn(async move {
                // Length-prefixed messages, until the resolver closes.
                let mut len = [0; 2];
                while stream.read_exact(&mut len).await.is_ok() {
                    let mut query = vec![0; usize::from(u16::from_be_bytes(len))];
                    stream.read_exact(&mut query).await.unwrap();
                    let (name, qtype, _) = parse_question(&query);
                    let _ = questions_tx.send(Question {
                        name: name.clone(),
                        qtype,
                        over_tcp: true,
                    });
                    let reply = answer(&query, &addresses(&name), false);
                    stream
                        .write_all(&(reply.len() as u16).to_be_bytes())
                        .await
                        .unwrap();
                    stream.write_all(&reply).await.unwrap();
                }
            });
        }
    });
    (addr, questions)
}

/// A resolver asking only `addr`, over UDP and TCP, caching nothing.
fn resolver(addr: SocketAddr, timeout: Duration) -> TokioResolver {
    let mut config = ResolverConfig::new();
    config.add_name_server(NameServerConfig::new(addr, Protocol::Udp));
    config.add_name_server(NameServerConfig::new(addr, Protocol::Tcp));
    let mut builder = Resolver::builder_with_config(config, TokioConnectionProvider::default());
    let options: &mut ResolverOpts = builder.options_mut();
    options.timeout = timeout;
    options.attempts = 3;
    options.cache_size = 0;
    builder.build()
}

fn a_question(name: &str, over_tcp: bool) -> Question {
    Question {
        name: name.to_owned(),
        qtype: 1,
        over_tcp,
    }
}

async fn concurrent_lookups() {
    let (addr, mut questions) = responder().await;
    let resolver = resolver(addr, Duration::from_secs(30));
    let lookups = (1..=32u8).map(|n| {
        let resolver = resolver.clone();
        tokio::spawn(async move {
            let found = resolver
                .ipv4_lookup(format!("host{n}.test."))
                .await
                .unwrap();
            let found: Vec<Ipv4Addr> = found.iter().map(|a| a.0).collect();
            assert_eq!(found, [Ipv4Addr::new(10, 0, 0, n)]);
        })
    });
    for lookup in bounded("32 lookups", futures::future::join_all(lookups)).await {
        lookup.unwrap();
    }
    // hickory's connection to the name server runs in tasks it spawned:
    // rt's.
    assert!(rt_tasks_spawned_in("/hickory-") > 0);
    let mut asked = Vec::new();
    while let Ok(question) = questions.try_recv() {
        asked.push(question);
    }
    for n in 1..=32u8 {
        assert!(
            asked.contains(&a_question(&format!("host{n}.test."), false)),
            "{asked:?}"
        );
    }
}

#[tokio::test]
async fn concurrent_lookups_current_thread() {
    concurrent_lookups().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_lookups_multi_thread() {
    concurrent_lookups().await;
}

// On a paused clock the resolver's timeout fires only once every task
// waits (the responder has dropped the packet), whatever the machine's load.
#[tokio::test(start_paused = true)]
async fn a_dropped_packet_is_sent_again() {
    let (addr, mut questions) = responder().await;
    let resolver = resolver(addr, Duration::from_secs(5));
    let found = resolver.ipv4_lookup("drop.test.").await.unwrap();
    assert_eq!(
        found.iter().map(|a| a.0).collect::<Vec<_>>(),
        [Ipv4Addr::new(10, 0, 0, 0)]
    );
    let first = questions.recv().await.unwrap();
    let second = questions.recv().await.unwrap();
    assert_eq!(first, a_question("drop.test.", false));
    assert_eq!(second, a_question("drop.test.", false));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_truncated_answer_is_fetched_over_tcp() {
    let (addr, mut questions) = responder().await;
    let resolver = resolver(addr, Duration::from_secs(30));
    let found = bounded("the lookup", resolver.ipv4_lookup("many.test."))
        .await
        .unwrap();
    let mut found: Vec<Ipv4Addr> = found.iter().map(|a| a.0).collect();
    found.sort();
    assert_eq!(found, addresses("many.test."));
    assert_eq!(
        questions.recv().await.unwrap(),
        a_question("many.test.", false)
    );
    assert_eq!(
        questions.recv().await.unwrap(),
        a_question("many.test.", true)
    );
}

#[tokio::test(start_paused = true)]
async fn no_answer_is_a_timeout() {
    // A responder that reads and never answers: every attempt times out on
    // the facade's timer and the lookup fails with hickory's timeout error.
    let silent = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let addr = silent.local_addr().unwrap();
    let mut config = ResolverConfig::new();
    config.add_name_server(NameServerConfig::new(addr, Protocol::Udp));
    let mut builder = Resolver::builder_with_config(config, TokioConnectionProvider::default());
    builder.options_mut().timeout = Duration::from_secs(5);
    builder.options_mut().attempts = 2;
    let resolver = builder.build();
    let lookup = tokio::spawn(async move { resolver.ipv4_lookup("host1.test.").await });
    // Both attempts arrive (the second after the first timed out).
    let mut buf = [0; 512];
    for _ in 0..2 {
        silent.recv_from(&mut buf).await.unwrap();
        assert_eq!(parse_question(&buf).0, "host1.test.");
    }
    let error = lookup.await.unwrap().unwrap_err();
    let timed_out = matches!(
        error.proto().map(|e| e.kind()),
        Some(ProtoErrorKind::Timeout)
    );
    assert!(timed_out, "{error:?}");
}
