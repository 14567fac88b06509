//! tokio-postgres on rt through the facade (its `Connection` future on the
//! facade's `TcpStream`, spawned with `tokio::spawn`; its cancel requests
//! on connections of their own), against the PostgreSQL v3 wire-protocol
//! responder in `postgres_responder/`. Simple and prepared queries with
//! typed rows and binary parameters; 32 tasks pipelining on one `Client`;
//! a transaction committed and one dropped (ROLLBACK); errors with their
//! SQLSTATE; a query cancelled through `CancelToken`; LISTEN/NOTIFY
//! through `poll_message` while queries go on; the server hanging up
//! mid-query; a query aborted mid-flight and its answer drained; the
//! client dropped (Terminate); a cleartext password; a startup never
//! answered.

mod postgres_responder;

use futures::StreamExt;
use postgres_responder::{
    ADD_ONE, HANG_UP, HOLD, INSERT, NAME_BY_ID, PROTOCOL_3_0, Responder, SERIES, responder,
    unix_responder,
};
use rt_ecosystem_tests::{assert_rt_runs, bounded};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::AsyncReadExt;
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use tokio_postgres::error::SqlState;
use tokio_postgres::types::Type;
use tokio_postgres::{AsyncMessage, Client, NoTls, SimpleQueryMessage};

async fn add_one(client: &Client, n: i32) -> i32 {
    let row = bounded(ADD_ONE, client.query_one(ADD_ONE, &[&n]))
        .await
        .unwrap();
    row.get::<_, i32>(0)
}

async fn name_by_id(client: &Client, id: i32) -> Option<String> {
    let row = bounded(NAME_BY_ID, client.query_opt(NAME_BY_ID, &[&id]))
        .await
        .unwrap();
    row.map(|row| row.get("name"))
}

#[tokio::test]
async fn simple_and_prepared_queries() {
    let responder = responder(None).await;
    let (client, _connection) = responder.connect().await;
    let startup = responder.database.lock().unwrap().startups[0].clone();
    assert_eq!(startup["user"], "rt");
    assert_eq!(startup["database"], "items");
    assert_eq!(startup["client_encoding"], "UTF8");

    let insert = bounded("prepare", client.prepare(INSERT)).await.unwrap();
    assert_eq!(insert.params(), [Type::INT4, Type::TEXT]);
    assert!(insert.columns().is_empty());
    for (id, name) in [(1, "one"), (2, "two")] {
        let inserted = bounded("insert", client.execute(&insert, &[&id, &name])).await;
        assert_eq!(inserted.unwrap(), 1);
    }
    assert_eq!(name_by_id(&client, 2).await.as_deref(), Some("two"));
    assert_eq!(name_by_id(&client, 3).await, None);
    assert_eq!(add_one(&client, 41).await, 42);
    // An unnamed statement, parsed, bound and run in one round trip.
    let typed = client.query_typed(ADD_ONE, &[(&99_i32, Type::INT4)]);
    let rows = bounded("query_typed", typed).await.unwrap();
    assert_eq!(
        rows.iter()
            .map(|row| row.get::<_, i32>(0))
            .collect::<Vec<_>>(),
        [100]
    );

    let messages = bounded("simple", client.simple_query("SELECT id, name FROM items")).await;
    let rows: Vec<_> = messages
        .unwrap()
        .into_iter()
        .filter_map(|message| match message {
            SimpleQueryMessage::Row(row) => Some((
                row.get(0).unwrap().to_owned(),
                row.get("name").unwrap().to_owned(),
            )),
            _ => None,
        })
        .collect();
    let expected = [("1", "one"), ("2", "two")].map(|(id, name)| (id.to_owned(), name.to_owned()));
    assert_eq!(rows, expected);
}

async fn many_tasks_one_client() {
    let responder = responder(None).await;
    let (client, connection) = responder.connect().await;
    let client = Arc::new(client);
    let tasks = (0..32).map(|task| {
        let client = client.clone();
        tokio::spawn(async move {
            for round in 0..4 {
                let n = task * 100 + round;
                assert_eq!(add_one(&client, n).await, n + 1);
            }
            let name = format!("task {task}");
            let inserted = client.execute(INSERT, &[&task, &name]).await.unwrap();
            assert_eq!(inserted, 1);
            assert_eq!(name_by_id(&client, task).await, Some(name));
        })
    });
    for task in bounded("32 tasks", futures::future::join_all(tasks)).await {
        task.unwrap();
    }
    // All on the one connection, whose task is still rt's.
    assert_eq!(responder.database.lock().unwrap().keys.len(), 1);
    assert_rt_runs(connection.id());
}

#[tokio::test]
async fn one_client_many_tasks_current_thread() {
    many_tasks_one_client().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn one_client_many_tasks_multi_thread() {
    many_tasks_one_client().await;
}

#[tokio::test]
async fn a_transaction_commits_and_a_dropped_one_rolls_back() {
    let mut responder = responder(None).await;
    let (mut client, _connection) = responder.connect().await;

    let transaction = bounded("BEGIN", client.transaction()).await.unwrap();
    responder.wait_for("Query START TRANSACTION").await;
    let inserted = bounded("insert", transaction.execute(INSERT, &[&1, &"kept"])).await;
    let inserted = inserted.unwrap();
    assert_eq!(inserted, 1);
    bounded("COMMIT", transaction.commit()).await.unwrap();
    responder.wait_for("Query COMMIT").await;

    let transaction = bounded("BEGIN", client.transaction()).await.unwrap();
    let inserted = bounded("insert", transaction.execute(INSERT, &[&2, &"dropped"])).await;
    let inserted = inserted.unwrap();
    assert_eq!(inserted, 1);
    let row = bounded("inside", transaction.query_one(NAME_BY_ID, &[&2])).await;
    assert_eq!(row.unwrap().get::<_, &str>(0), "dropped");
    drop(transaction);
    responder.wait_for("Query ROLLBACK").await;

    assert_eq!(name_by_id(&client, 2).await, None);
    assert_eq!(name_by_id(&client, 1).await.as_deref(), Some("kept"));
}

#[tokio::test]
async fn server_errors_carry_their_sqlstate_and_the_client_goes_on() {
    let responder = responder(None).await;
    let (client, _connection) = responder.connect().await;
    let first = bounded("insert", client.execute(INSERT, &[&1, &"first"])).await;
    assert_eq!(first.unwrap(), 1);

    // At Execute, after ParseComplete and BindComplete.
    let error = bounded("again", client.execute(INSERT, &[&1, &"again"]))
        .await
        .unwrap_err();
    let db_error = error.as_db_error().expect("a server error");
    assert_eq!(db_error.code(), &SqlState::UNIQUE_VIOLATION);
    assert!(db_error.message().contains("items_pkey"), "{db_error:?}");
    let error = bounded("overflow", client.query_one(ADD_ONE, &[&i32::MAX])).await;
    assert_eq!(
        error.unwrap_err().code(),
        Some(&SqlState::NUMERIC_VALUE_OUT_OF_RANGE)
    );
    // At Parse, and in the simple protocol.
    let error = bounded("prepare", client.prepare("SELEC nonsense"))
        .await
        .unwrap_err();
    assert_eq!(error.code(), Some(&SqlState::SYNTAX_ERROR));
    let error = bounded("simple", client.simple_query("SELEC nonsense"))
        .await
        .unwrap_err();
    assert_eq!(error.code(), Some(&SqlState::SYNTAX_ERROR));

    assert_eq!(name_by_id(&client, 1).await.as_deref(), Some("first"));
    assert_eq!(add_one(&client, 1).await, 2);
}

// On two workers: the cancel request's connection, the notifier's and the
// listener's are served wherever the scheduler puts them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_held_query_is_cancelled_through_its_cancel_token() {
    let mut responder = responder(None).await;
    let (client, _connection) = responder.connect().await;
    cancel_a_held_query(&mut responder, client).await;
}

/// Holds a query at the responder, cancels it through the client's
/// `CancelToken` (a connection of its own, naming the key the responder
/// gave), sees the query fail with 57014, and the client still answer.
async fn cancel_a_held_query(responder: &mut Responder, client: Client) {
    let (pid, secret) = responder.last_key();
    let client = Arc::new(client);
    let held = tokio::spawn({
        let client = client.clone();
        async move { client.query_one(HOLD, &[&5]).await }
    });
    responder.wait_for("Execute Hold").await;

    let cancel = client.cancel_token();
    bounded("cancel", cancel.cancel_query(NoTls)).await.unwrap();
    responder
        .wait_for(&format!("CancelRequest {pid} {secret}"))
        .await;
    let error = bounded("held", held).await.unwrap().unwrap_err();
    assert_eq!(error.code(), Some(&SqlState::QUERY_CANCELED));

    assert_eq!(add_one(&client, 7).await, 8);
}

// On two workers: the cancel request's connection, the notifier's and the
// listener's are served wherever the scheduler puts them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notifications_arrive_through_poll_message_while_queries_go_on() {
    let responder = responder(None).await;
    let config = responder.config("");
    let connect = tokio_postgres::connect(&config, NoTls);
    let (listener, mut connection) = bounded("connect", connect).await.unwrap();
    // The connection driven through `poll_message`, as tokio-postgres'
    // docs show, its notifications sent on to the test.
    let (notifications_tx, mut notifications) = mpsc::unbounded_channel();
    let driver = tokio::spawn(async move {
        let mut messages = futures::stream::poll_fn(move |cx| connection.poll_message(cx));
        while let Some(message) = messages.next().await {
            match message? {
                AsyncMessage::Notification(notification) => {
                    notifications_tx.send(notification).unwrap();
                }
                other => panic!("unexpected {other:?}"),
            }
        }
        Ok::<_, tokio_postgres::Error>(())
    });
    assert_rt_runs(driver.id());
    bounded("LISTEN", listener.batch_execute("LISTEN events"))
        .await
        .unwrap();

    let (notifier, _connection) = responder.connect().await;
    let (notifier_pid, _) = responder.last_key();
    for i in 0..8 {
        let notify = format!("NOTIFY events, 'n{i}'");
        bounded("NOTIFY", notifier.batch_execute(&notify))
            .await
            .unwrap();
        assert_eq!(add_one(&listener, i).await, i + 1);
        let notification = bounded("notification", notifications.recv()).await.unwrap();
        assert_eq!(notification.channel(), "events");
        assert_eq!(notification.payload(), format!("n{i}"));
        assert_eq!(notification.process_id(), notifier_pid);
    }

    // The client dropped, the driver's stream ends.
    drop(listener);
    bounded("driver", driver).await.unwrap().unwrap();
}

#[tokio::test]
async fn the_server_hanging_up_mid_query_fails_it_and_ends_the_connection() {
    let responder = responder(None).await;
    let (client, connection) = responder.connect().await;
    assert_eq!(add_one(&client, 1).await, 2);

    let error = bounded("hang up", client.query_one(HANG_UP, &[])).await;
    assert!(error.as_ref().unwrap_err().is_closed(), "{error:?}");
    let ended = bounded("the connection", connection).await.unwrap();
    assert!(ended.as_ref().unwrap_err().is_closed(), "{ended:?}");
    assert!(client.is_closed());
    let error = bounded("after", client.query_one(ADD_ONE, &[&1])).await;
    assert!(error.as_ref().unwrap_err().is_closed(), "{error:?}");
}

#[tokio::test]
async fn an_aborted_query_is_drained_and_the_next_get_their_own_answers() {
    let mut responder = responder(None).await;
    let (client, _connection) = responder.connect().await;
    let client = Arc::new(client);
    let held = tokio::spawn({
        let client = client.clone();
        async move { client.query_one(HOLD, &[&5]).await }
    });
    responder.wait_for("Execute Hold").await;
    // Queued on the connection behind the held answer.
    let next = tokio::spawn({
        let client = client.clone();
        async move { add_one(&client, 41).await }
    });
    held.abort();
    assert!(bounded("held", held).await.unwrap_err().is_cancelled());

    responder.release.notify_one();
    assert_eq!(bounded("next", next).await.unwrap(), 42);
    for n in 0..4 {
        assert_eq!(add_one(&client, n).await, n + 1);
    }
}

#[tokio::test]
async fn a_dropped_client_ends_its_connection_with_terminate() {
    let mut responder = responder(None).await;
    let (client, connection) = responder.connect().await;
    assert_eq!(add_one(&client, 1).await, 2);
    drop(client);
    bounded("the connection", connection)
        .await
        .unwrap()
        .unwrap();
    responder.wait_for("Terminate").await;
}

#[tokio::test]
async fn a_client_dropped_mid_query_terminates_once_the_answer_is_in() {
    let mut responder = responder(None).await;
    let (client, connection) = responder.connect().await;
    let client = Arc::new(client);
    let held = tokio::spawn({
        let client = client.clone();
        async move { client.query_one(HOLD, &[&5]).await }
    });
    responder.wait_for("Execute Hold").await;
    held.abort();
    assert!(bounded("held", held).await.unwrap_err().is_cancelled());
    drop(client);

    // The connection waits for the abandoned answer, then says goodbye.
    assert!(!connection.is_finished());
    responder.release.notify_one();
    bounded("the connection", connection)
        .await
        .unwrap()
        .unwrap();
    responder.wait_for("Terminate").await;
}

#[tokio::test]
async fn a_cleartext_password_is_checked() {
    let responder = responder(Some("hunter2")).await;
    let config = responder.config("password=hunter2");
    let connect = tokio_postgres::connect(&config, NoTls);
    let (client, connection) = bounded("connect", connect).await.unwrap();
    let connection = tokio::spawn(connection);
    assert_rt_runs(connection.id());
    assert_eq!(add_one(&client, 1).await, 2);

    let config = responder.config("password=wrong");
    let connect = tokio_postgres::connect(&config, NoTls);
    let Err(error) = bounded("connect", connect).await else {
        panic!("a wrong password was accepted");
    };
    assert_eq!(error.code(), Some(&SqlState::INVALID_PASSWORD));
}

/// `connect_timeout` bounds the TCP connect alone (tokio-postgres'
/// documentation says so): a server that accepts and never answers the
/// startup holds `connect` until the caller's own timeout, which fires on
/// the paused clock once nothing else can run.
#[tokio::test]
async fn a_startup_never_answered_waits_for_the_callers_timeout() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let (startup_tx, mut startup) = mpsc::unbounded_channel();
    let server = tokio::spawn(async move {
        let (mut stream, _) = listener.accept().await.unwrap();
        let len = stream.read_u32().await.unwrap();
        let code = stream.read_i32().await.unwrap();
        startup_tx.send((len, code)).unwrap();
        // Holds the connection, unanswered.
        std::future::pending::<()>().await;
    });
    assert_rt_runs(server.id());

    tokio::time::pause();
    let start = tokio::time::Instant::now();
    let config = format!("host=127.0.0.1 port={port} user=rt connect_timeout=5");
    let connect = tokio_postgres::connect(&config, NoTls);
    let result = tokio::time::timeout(Duration::from_secs(30), connect).await;
    assert!(result.is_err(), "connect ended before the caller's timeout");
    assert!(start.elapsed() >= Duration::from_secs(30));
    let (_, code) = bounded("the startup", startup.recv()).await.unwrap();
    assert_eq!(code, PROTOCOL_3_0);
}

/// Large messages both ways (a 1 MiB parameter and value), and a long
/// answer (100,000 rows, in one write from the responder) read slowly
/// through `query_raw`, then another abandoned after a few rows: the
/// connection waits on the reader, then drains what nobody reads; the
/// queries queued behind each get their own answers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn big_values_and_long_answers_read_slowly_or_abandoned() {
    const ROWS: i32 = 100_000;
    let responder = responder(None).await;
    let (client, connection) = responder.connect().await;
    let client = Arc::new(client);
    let big: String = ('a'..='z').cycle().take(1 << 20).collect();
    let inserted = bounded("insert", client.execute(INSERT, &[&1, &big])).await;
    assert_eq!(inserted.unwrap(), 1);
    assert_eq!(name_by_id(&client, 1).await, Some(big));

    let rows = bounded("query_raw", client.query_raw(SERIES, [ROWS])).await;
    let mut rows = std::pin::pin!(rows.unwrap());
    let behind = tokio::spawn({
        let client = client.clone();
        async move { add_one(&client, 41).await }
    });
    let mut expected = 1;
    while let Some(row) = bounded("a row", rows.next()).await {
        assert_eq!(row.unwrap().get::<_, i32>(0), expected);
        if expected % 1000 == 0 {
            tokio::task::yield_now().await;
        }
        expected += 1;
    }
    assert_eq!(expected, ROWS + 1);
    assert_eq!(rows.rows_affected(), Some(u64::try_from(ROWS).unwrap()));
    assert_eq!(bounded("behind", behind).await.unwrap(), 42);

    let rows = bounded("query_raw", client.query_raw(SERIES, [ROWS])).await;
    let mut rows = Box::pin(rows.unwrap());
    for expected in 1..=10 {
        let row = bounded("a row", rows.next()).await.unwrap().unwrap();
        assert_eq!(row.get::<_, i32>(0), expected);
    }
    let behind = tokio::spawn({
        let client = client.clone();
        async move { add_one(&client, 99).await }
    });
    drop(rows);
    assert_eq!(bounded("behind", behind).await.unwrap(), 100);
    assert_eq!(add_one(&client, 1).await, 2);
    assert_rt_runs(connection.id());
}

/// A runtime shut down under a connection: its task dropped with it, the
/// client (kept outside) is closed, its socket with it (the responder, on
/// another runtime, reads EOF), and a query from another runtime fails.
#[test]
fn a_runtime_shut_down_under_a_connection_closes_its_client() {
    let server = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let mut responder = server.block_on(responder(None));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let client = runtime.block_on(async {
        let (client, _connection) = responder.connect().await;
        assert_eq!(add_one(&client, 1).await, 2);
        client
    });
    assert!(!client.is_closed());
    drop(runtime);

    assert!(client.is_closed());
    server.block_on(async {
        responder.wait_for("EOF").await;
        let error = bounded("after", client.query_one(ADD_ONE, &[&1])).await;
        assert!(error.as_ref().unwrap_err().is_closed(), "{error:?}");
    });
}

/// The same client over a Unix socket (`host` a directory): its connection
/// on the facade's `UnixStream`, and its cancel request too.
#[tokio::test]
async fn over_a_unix_socket() {
    let dir = std::env::temp_dir().join(format!("rt-tokio-postgres-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut responder = unix_responder(&dir).await;
    let (client, _connection) = responder.connect().await;
    assert_eq!(add_one(&client, 1).await, 2);
    let inserted = bounded("insert", client.execute(INSERT, &[&1, &"unix"])).await;
    assert_eq!(inserted.unwrap(), 1);
    assert_eq!(name_by_id(&client, 1).await.as_deref(), Some("unix"));

    cancel_a_held_query(&mut responder, client).await;
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A query the caller times out (on the paused clock, while the responder
/// holds it): the late answer, once released, is drained, and the next
/// query gets its own.
#[tokio::test]
async fn a_query_timed_out_by_its_caller_is_drained() {
    let mut responder = responder(None).await;
    let (client, _connection) = responder.connect().await;
    assert_eq!(add_one(&client, 1).await, 2);
    tokio::time::pause();
    let late = tokio::time::timeout(Duration::from_secs(5), client.query_one(HOLD, &[&5])).await;
    assert!(late.is_err(), "the held query answered: {late:?}");
    responder.wait_for("Execute Hold").await;
    responder.release.notify_one();
    assert_eq!(add_one(&client, 10).await, 11);
}

/// Two hosts, the first refusing: tokio-postgres moves on to the second
/// (the facade's `TcpStream::connect` error, then a connection).
#[tokio::test]
async fn a_refused_host_is_skipped_for_the_next() {
    let responder = responder(None).await;
    let refused = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let refused_port = refused.local_addr().unwrap().port();
    drop(refused);
    let config = responder.config("").replace(
        "host=127.0.0.1 port=",
        &format!("host=127.0.0.1,127.0.0.1 port={refused_port},"),
    );
    let (client, connection) = bounded("connect", tokio_postgres::connect(&config, NoTls))
        .await
        .unwrap();
    let connection = tokio::spawn(connection);
    assert_rt_runs(connection.id());
    assert_eq!(add_one(&client, 1).await, 2);
    assert_eq!(responder.database.lock().unwrap().keys.len(), 1);
}

/// The connection on one runtime (two workers), its client used from
/// another's `block_on`, as a blocking wrapper does: each answer wakes a
/// task of the other runtime. The client dropped, the connection ends.
#[test]
fn a_client_on_one_runtime_and_its_connection_on_another() {
    let server = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let mut responder = server.block_on(responder(None));
    let (client, connection) = server.block_on(responder.connect());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let queries = (0..16).map(|n| add_one(&client, n));
        let answers = bounded("16 queries", futures::future::join_all(queries)).await;
        assert_eq!(answers, (1..=16).collect::<Vec<_>>());
    });
    drop(client);
    server.block_on(async {
        bounded("the connection", connection)
            .await
            .unwrap()
            .unwrap();
        responder.wait_for("Terminate").await;
    });
}
