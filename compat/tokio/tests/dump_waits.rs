//! A facade user's waits are located at the user's line in rt's task dump
//! (`rt::runtime::Builder::track_waits`, or `RT_DEBUG=1` for the runtimes
//! `#[tokio::main]` builds): the facade's wrappers pass their caller's
//! location through (`#[track_caller]`) rather than showing their own.

use std::sync::Arc;
use std::time::Duration;

/// The kind and line of each wait the idle task `id` recorded, once the
/// dump shows it idle with `count` waits (driving the current-thread
/// runtime between looks).
fn idle_waits(
    rt: &rt::runtime::Runtime,
    id: rt::task::Id,
    count: usize,
) -> Vec<(&'static str, u32)> {
    for _ in 0..100_000 {
        let dump = rt.handle().dump();
        if let Some(task) = dump.iter().find(|task| task.id() == id) {
            if task.state() == rt::runtime::TaskState::Idle && task.waits().len() >= count {
                return task
                    .waits()
                    .iter()
                    .map(|wait| {
                        let location = wait.location().expect("a located wait");
                        assert_eq!(location.file(), file!(), "{wait:?}");
                        (wait.kind(), location.line())
                    })
                    .collect();
            }
        }
        rt.block_on(rt::task::yield_now());
    }
    panic!(
        "task {id} never showed {count} wait(s):\n{}",
        rt.handle().dump()
    );
}

#[test]
fn the_facades_waits_name_the_users_line() {
    let rt = rt::runtime::Builder::new_current_thread()
        .enable_all()
        .track_waits(true)
        .build()
        .unwrap();
    let notify = Arc::new(tokio::sync::Notify::new());
    let listener = rt
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let (client, _server) = rt.block_on(async {
        let client = tokio::net::TcpStream::connect(listener.local_addr().unwrap());
        let (client, accepted) = tokio::join!(client, listener.accept());
        (client.unwrap(), accepted.unwrap())
    });

    let waiter = notify.clone();
    let notified_line = line!() + 1;
    let notified = rt.spawn(async move { waiter.notified().await });
    let owned = notify.clone();
    let owned_line = line!() + 1;
    let owned_notified = rt.spawn(async move { owned.notified_owned().await });
    let sleep_line = line!() + 1;
    let sleeping = rt.spawn(async { tokio::time::sleep(Duration::from_secs(3600)).await });
    let listener = Arc::new(listener);
    let accepting_listener = listener.clone();
    let accept_line = line!() + 1;
    let accepting = rt.spawn(async move { accepting_listener.accept().await.map(|_| ()) });
    let client = Arc::new(client);
    let reader = client.clone();
    let readable_line = line!() + 1;
    let reading = rt.spawn(async move { reader.readable().await });

    let cases = [
        (&notified, "Notify::notified", notified_line),
        (&owned_notified, "Notify::notified_owned", owned_line),
        (&sleeping, "sleep", sleep_line),
    ];
    for (task, kind, line) in cases {
        assert_eq!(idle_waits(&rt, task.id(), 1), [(kind, line)]);
    }
    let [(_, line)] = idle_waits(&rt, accepting.id(), 1)[..] else {
        panic!("one wait");
    };
    assert_eq!(line, accept_line);
    let [(_, line)] = idle_waits(&rt, reading.id(), 1)[..] else {
        panic!("one wait");
    };
    assert_eq!(line, readable_line);

    notify.notify_waiters();
    rt.block_on(notified).unwrap();
    rt.block_on(owned_notified).unwrap();
    sleeping.abort();
    accepting.abort();
    reading.abort();
}
