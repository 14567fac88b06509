//! A PostgreSQL v3 wire-protocol responder for tests/tokio_postgres.rs:
//! the backend side of the startup (a cleartext password if asked),
//! simple queries, the extended protocol (Parse, Bind, Describe, Execute,
//! Sync, Close) for the few statements below, ErrorResponse with a
//! SQLSTATE, NotificationResponse for LISTEN/NOTIFY, and CancelRequest on
//! a connection of its own. Test support, not a database: one table of
//! (id, name) shared by every connection.

use bytes::{Buf, BufMut, Bytes, BytesMut};
use rt_ecosystem_tests::{assert_rt_runs, bounded};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, UnixListener};
use tokio::sync::{Notify, mpsc};
use tokio::task::JoinHandle;
use tokio_postgres::types::Type;
use tokio_postgres::{Client, NoTls};

/// The statements the responder understands over the extended protocol.
pub(crate) const ADD_ONE: &str = "SELECT $1::INT4 + 1";
pub(crate) const INSERT: &str = "INSERT INTO items (id, name) VALUES ($1, $2)";
pub(crate) const NAME_BY_ID: &str = "SELECT name FROM items WHERE id = $1";
pub(crate) const HOLD: &str = "SELECT hold($1::INT4)";
pub(crate) const HANG_UP: &str = "SELECT hang_up()";
pub(crate) const SERIES: &str = "SELECT generate_series(1, $1::INT4)";

/// The startup message's protocol version (3.0) and the cancel request's
/// code, where a tagged message would have its tag.
pub(crate) const PROTOCOL_3_0: i32 = 196_608;
const CANCEL_REQUEST: i32 = 80_877_102;

/// What the responder reports as `server_version`.
const SERVER_VERSION: &str = "16.0 (rt test responder)";

/// The statements above (the responder's only "SQL"); anything else is a
/// syntax error.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Statement {
    AddOne,
    Insert,
    NameById,
    /// Answers `$1` once the test releases it, or 57014 once cancelled.
    Hold,
    /// Closes the connection without an answer.
    HangUp,
    /// The rows 1 to `$1`, in one write.
    Series,
}

impl Statement {
    fn parse(sql: &str) -> Option<Statement> {
        Some(match sql {
            ADD_ONE => Statement::AddOne,
            INSERT => Statement::Insert,
            NAME_BY_ID => Statement::NameById,
            HOLD => Statement::Hold,
            HANG_UP => Statement::HangUp,
            SERIES => Statement::Series,
            _ => return None,
        })
    }

    fn params(self) -> Vec<Type> {
        match self {
            Statement::AddOne | Statement::NameById | Statement::Hold | Statement::Series => {
                vec![Type::INT4]
            }
            Statement::Insert => vec![Type::INT4, Type::TEXT],
            Statement::HangUp => vec![],
        }
    }

    fn columns(self) -> Vec<(&'static str, Type)> {
        match self {
            Statement::AddOne => vec![("?column?", Type::INT4)],
            Statement::Insert => vec![],
            Statement::NameById => vec![("name", Type::TEXT)],
            Statement::Hold => vec![("hold", Type::INT4)],
            Statement::HangUp => vec![("hang_up", Type::TEXT)],
            Statement::Series => vec![("generate_series", Type::INT4)],
        }
    }
}

/// What every connection shares: the table, the backends' cancel keys and
/// the LISTENers.
#[derive(Default)]
pub(crate) struct Database {
    items: BTreeMap<i32, String>,
    /// Every cancel key handed out, in order: (process id, secret).
    pub(crate) keys: Vec<(i32, i32)>,
    /// The live backends' secrets and the signals their held queries
    /// wait on, by process id.
    backends: HashMap<i32, (i32, Arc<Notify>)>,
    /// Each channel's listening connections, by process id.
    listeners: HashMap<String, Vec<(i32, Writer)>>,
    /// Each connection's startup parameters, in order.
    pub(crate) startups: Vec<HashMap<String, String>>,
}

/// A connection's halves, TCP or Unix; the write half shared with the
/// connections that NOTIFY it.
type Reader = Box<dyn AsyncRead + Send + Unpin>;
type Writer = Arc<tokio::sync::Mutex<Box<dyn AsyncWrite + Send + Unpin>>>;

/// What the test sees of the responder.
pub(crate) struct Responder {
    /// tokio-postgres' `host` and `port`: an address, or the directory of
    /// a Unix socket.
    host: String,
    port: u16,
    /// What the responder received, in order, as "Query COMMIT",
    /// "Execute Hold", "Terminate", "CancelRequest 1 2"...
    events: mpsc::UnboundedReceiver<String>,
    /// Lets a held query answer.
    pub(crate) release: Arc<Notify>,
    pub(crate) database: Arc<Mutex<Database>>,
}

/// Everything one connection task needs from the responder.
#[derive(Clone)]
struct Shared {
    database: Arc<Mutex<Database>>,
    events: mpsc::UnboundedSender<String>,
    release: Arc<Notify>,
    /// The cleartext password asked for, if any.
    password: Option<&'static str>,
}

impl Shared {
    fn event(&self, event: String) {
        // The test may have stopped reading (it ended): events are only
        // for the tests that wait for them.
        let _ = self.events.send(event);
    }
}

/// One backend message: its tag, its length (itself included), its body.
fn message(out: &mut BytesMut, tag: u8, fill: impl FnOnce(&mut BytesMut)) {
    let mut body = BytesMut::new();
    fill(&mut body);
    out.put_u8(tag);
    out.put_u32(u32::try_from(body.len() + 4).unwrap());
    out.put(body);
}

fn put_cstr(buf: &mut BytesMut, value: &str) {
    buf.put_slice(value.as_bytes());
    buf.put_u8(0);
}

fn get_cstr(buf: &mut Bytes) -> String {
    let end = buf.iter().position(|&b| b == 0).expect("a C string");
    let value = String::from_utf8(buf.split_to(end).to_vec()).unwrap();
    buf.advance(1);
    value
}

fn error_response(out: &mut BytesMut, code: &str, text: &str) {
    message(out, b'E', |b| {
        for (field, value) in [(b'S', "ERROR"), (b'V', "ERROR"), (b'C', code), (b'M', text)] {
            b.put_u8(field);
            put_cstr(b, value);
        }
        b.put_u8(0);
    });
}

/// `format` 0 is text (simple queries), 1 binary (tokio-postgres' binds);
/// a statement's description has 0, the format not being known yet.
fn row_description(out: &mut BytesMut, columns: &[(&str, Type)], format: i16) {
    message(out, b'T', |b| {
        b.put_i16(i16::try_from(columns.len()).unwrap());
        for (name, ty) in columns {
            put_cstr(b, name);
            b.put_u32(0); // no table
            b.put_i16(0); // no column number
            b.put_u32(ty.oid());
            b.put_i16(-1); // size: variable
            b.put_i32(-1); // no type modifier
            b.put_i16(format);
        }
    });
}

fn data_row(out: &mut BytesMut, values: &[&[u8]]) {
    message(out, b'D', |b| {
        b.put_i16(i16::try_from(values.len()).unwrap());
        for value in values {
            b.put_u32(u32::try_from(value.len()).unwrap());
            b.put_slice(value);
        }
    });
}

fn command_complete(out: &mut BytesMut, tag: &str) {
    message(out, b'C', |b| put_cstr(b, tag));
}

/// One tagged frontend message, or `None` at the end of the stream.
async fn read_message(read: &mut Reader) -> Option<(u8, Bytes)> {
    let tag = read.read_u8().await.ok()?;
    let len = read.read_u32().await.ok()?;
    let mut body = vec![0; usize::try_from(len).ok()?.checked_sub(4)?];
    read.read_exact(&mut body).await.ok()?;
    Some((tag, body.into()))
}

impl Responder {
    fn new(host: String, port: u16, password: Option<&'static str>) -> (Responder, Shared) {
        let (events_tx, events) = mpsc::unbounded_channel();
        let shared = Shared {
            database: Arc::default(),
            events: events_tx,
            release: Arc::new(Notify::new()),
            password,
        };
        let responder = Responder {
            host,
            port,
            events,
            release: shared.release.clone(),
            database: shared.database.clone(),
        };
        (responder, shared)
    }
}

/// A responder on the facade's `TcpListener`; `password`, if given, is
/// asked for in cleartext before `AuthenticationOk`.
pub(crate) async fn responder(password: Option<&'static str>) -> Responder {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let (responder, shared) = Responder::new("127.0.0.1".to_owned(), port, password);
    let server = tokio::spawn(async move {
        loop {
            let (stream, _) = listener.accept().await.unwrap();
            // As PostgreSQL does: its answers are small writes, and Nagle's
            // delay against the client's delayed ACK would hold each ~40 ms.
            stream.set_nodelay(true).unwrap();
            let (read, write) = stream.into_split();
            tokio::spawn(serve(Box::new(read), Box::new(write), shared.clone()));
        }
    });
    assert_rt_runs(server.id());
    responder
}

/// A responder on the facade's `UnixListener`, its socket in `dir` under
/// the name PostgreSQL gives it for port 5432.
pub(crate) async fn unix_responder(dir: &Path) -> Responder {
    let listener = UnixListener::bind(dir.join(".s.PGSQL.5432")).unwrap();
    let host = dir.to_str().unwrap().to_owned();
    let (responder, shared) = Responder::new(host, 5432, None);
    let server = tokio::spawn(async move {
        loop {
            let (stream, _) = listener.accept().await.unwrap();
            let (read, write) = stream.into_split();
            tokio::spawn(serve(Box::new(read), Box::new(write), shared.clone()));
        }
    });
    assert_rt_runs(server.id());
    responder
}

/// One connection: a startup (or a cancel request), then a session.
async fn serve(mut read: Reader, write: Box<dyn AsyncWrite + Send + Unpin>, shared: Shared) {
    let Ok(len) = read.read_u32().await else {
        return;
    };
    let code = read.read_i32().await.unwrap();
    let mut body = vec![0; usize::try_from(len).unwrap() - 8];
    read.read_exact(&mut body).await.unwrap();
    let mut body = Bytes::from(body);
    match code {
        CANCEL_REQUEST => {
            let (pid, secret) = (body.get_i32(), body.get_i32());
            shared.event(format!("CancelRequest {pid} {secret}"));
            let database = shared.database.lock().unwrap();
            if let Some((_, cancel)) = database.backends.get(&pid).filter(|(s, _)| *s == secret) {
                cancel.notify_one();
            }
            // The connection closes unanswered, as PostgreSQL's does.
            return;
        }
        PROTOCOL_3_0 => {}
        other => panic!("unexpected startup code {other}"),
    }
    let mut parameters = HashMap::new();
    while body.first() != Some(&0) {
        let name = get_cstr(&mut body);
        parameters.insert(name, get_cstr(&mut body));
    }
    let writer = Arc::new(tokio::sync::Mutex::new(write));
    let mut out = BytesMut::new();
    if let Some(password) = shared.password {
        message(&mut out, b'R', |b| b.put_i32(3)); // AuthenticationCleartextPassword
        writer.lock().await.write_all(&out.split()).await.unwrap();
        let Some((b'p', mut given)) = read_message(&mut read).await else {
            panic!("no password message");
        };
        if get_cstr(&mut given) != password {
            let user = &parameters["user"];
            let text = format!("password authentication failed for user \"{user}\"");
            error_response(&mut out, "28P01", &text);
            writer.lock().await.write_all(&out).await.unwrap();
            return;
        }
    }
    let cancel = Arc::new(Notify::new());
    let (pid, secret) = {
        let mut database = shared.database.lock().unwrap();
        let pid = i32::try_from(database.keys.len()).unwrap() + 1;
        let secret = 0x5EC0_0000 | pid;
        database.keys.push((pid, secret));
        database.backends.insert(pid, (secret, cancel.clone()));
        database.startups.push(parameters);
        (pid, secret)
    };
    message(&mut out, b'R', |b| b.put_i32(0)); // AuthenticationOk
    for (name, value) in [
        ("server_version", SERVER_VERSION),
        ("server_encoding", "UTF8"),
        ("client_encoding", "UTF8"),
        ("DateStyle", "ISO, MDY"),
        ("integer_datetimes", "on"),
        ("standard_conforming_strings", "on"),
    ] {
        message(&mut out, b'S', |b| {
            put_cstr(b, name);
            put_cstr(b, value);
        });
    }
    message(&mut out, b'K', |b| {
        b.put_i32(pid);
        b.put_i32(secret);
    });
    message(&mut out, b'Z', |b| b.put_u8(b'I'));
    if writer.lock().await.write_all(&out).await.is_ok() {
        let mut session = Session {
            shared: shared.clone(),
            pid,
            cancel,
            writer: writer.clone(),
            statements: HashMap::new(),
            portals: HashMap::new(),
            undo: None,
        };
        session.run(read).await;
    }
    // Gone: no more cancels or notifications for this backend (the
    // listeners' writers would keep the socket open).
    let mut database = shared.database.lock().unwrap();
    database.backends.remove(&pid);
    for listeners in database.listeners.values_mut() {
        listeners.retain(|(listener, _)| *listener != pid);
    }
}

/// What executing a bound statement comes to.
enum Outcome {
    /// Rows of one binary column, and the command tag.
    Rows(Vec<Vec<u8>>, String),
    /// An error's SQLSTATE and message.
    Error(&'static str, String),
    /// The connection closes, unanswered.
    HangUp,
}

/// One backend's state between messages.
struct Session {
    shared: Shared,
    pid: i32,
    /// Notified by a cancel request with this backend's key.
    cancel: Arc<Notify>,
    writer: Writer,
    statements: HashMap<String, Statement>,
    /// Bound portals: their statement and parameters (binary; `None` for
    /// NULL).
    portals: HashMap<String, (Statement, Vec<Option<Bytes>>)>,
    /// In a transaction: the ids inserted since BEGIN, which ROLLBACK
    /// removes.
    undo: Option<Vec<i32>>,
}

impl Session {
    /// Answers messages until the client terminates ("Terminate") or goes
    /// away ("EOF"), or a statement hangs up.
    async fn run(&mut self, mut read: Reader) {
        // After an error in the extended protocol, messages are skipped up
        // to the next Sync.
        let mut failed = false;
        while let Some((tag, mut body)) = read_message(&mut read).await {
            let mut out = BytesMut::new();
            match tag {
                b'X' => {
                    self.shared.event("Terminate".to_owned());
                    return;
                }
                b'S' => {
                    failed = false;
                    let status = if self.undo.is_some() { b'T' } else { b'I' };
                    message(&mut out, b'Z', |b| b.put_u8(status));
                }
                _ if failed => continue,
                b'Q' => self.simple_query(&get_cstr(&mut body), &mut out).await,
                b'P' => {
                    let name = get_cstr(&mut body);
                    let sql = get_cstr(&mut body);
                    self.shared.event(format!("Parse {sql}"));
                    match Statement::parse(&sql) {
                        Some(statement) => {
                            self.statements.insert(name, statement);
                            message(&mut out, b'1', |_| {}); // ParseComplete
                        }
                        None => {
                            error_response(&mut out, "42601", &format!("syntax error: {sql}"));
                            failed = true;
                        }
                    }
                }
                b'B' => {
                    let portal = get_cstr(&mut body);
                    let statement = self.statements[&get_cstr(&mut body)];
                    let formats = body.get_i16();
                    assert!(
                        (0..formats).all(|_| body.get_i16() == 1),
                        "binary parameters"
                    );
                    let params = (0..body.get_i16())
                        .map(|_| match body.get_i32() {
                            -1 => None,
                            len => Some(body.split_to(usize::try_from(len).unwrap())),
                        })
                        .collect();
                    self.portals.insert(portal, (statement, params));
                    message(&mut out, b'2', |_| {}); // BindComplete
                }
                b'D' => {
                    let kind = body.get_u8();
                    let name = get_cstr(&mut body);
                    let statement = match kind {
                        b'S' => self.statements[&name],
                        _ => self.portals[&name].0,
                    };
                    if kind == b'S' {
                        message(&mut out, b't', |b| {
                            let params = statement.params();
                            b.put_i16(i16::try_from(params.len()).unwrap());
                            params.iter().for_each(|ty| b.put_u32(ty.oid()));
                        });
                    }
                    match statement.columns() {
                        columns if columns.is_empty() => message(&mut out, b'n', |_| {}),
                        columns => row_description(&mut out, &columns, 0),
                    }
                }
                b'E' => {
                    let (statement, params) = self.portals[&get_cstr(&mut body)].clone();
                    self.shared.event(format!("Execute {statement:?}"));
                    match self.execute(statement, &params).await {
                        Outcome::Rows(rows, tag) => {
                            for row in rows {
                                data_row(&mut out, &[row.as_slice()]);
                            }
                            command_complete(&mut out, &tag);
                        }
                        Outcome::Error(code, text) => {
                            error_response(&mut out, code, &text);
                            failed = true;
                        }
                        Outcome::HangUp => return,
                    }
                }
                b'C' => {
                    if body.get_u8() == b'S' {
                        self.statements.remove(&get_cstr(&mut body));
                    }
                    message(&mut out, b'3', |_| {}); // CloseComplete
                }
                b'H' => {} // Flush: every answer is written at once anyway
                other => panic!("unexpected frontend message {:?}", char::from(other)),
            }
            if self.writer.lock().await.write_all(&out).await.is_err() {
                return;
            }
        }
        self.shared.event("EOF".to_owned());
    }

    async fn execute(&mut self, statement: Statement, params: &[Option<Bytes>]) -> Outcome {
        let int = |i: usize| i32::from_be_bytes(params[i].as_deref().unwrap().try_into().unwrap());
        match statement {
            Statement::AddOne => match int(0).checked_add(1) {
                Some(n) => Outcome::Rows(vec![n.to_be_bytes().to_vec()], "SELECT 1".to_owned()),
                None => Outcome::Error("22003", "integer out of range".to_owned()),
            },
            Statement::Insert => {
                let (id, name) = (int(0), params[1].as_deref().unwrap());
                let mut database = self.shared.database.lock().unwrap();
                if database.items.contains_key(&id) {
                    let text = format!(
                        "duplicate key value violates unique constraint \"items_pkey\" (id {id})"
                    );
                    return Outcome::Error("23505", text);
                }
                let name = String::from_utf8(name.to_vec()).unwrap();
                database.items.insert(id, name);
                if let Some(undo) = &mut self.undo {
                    undo.push(id);
                }
                Outcome::Rows(vec![], "INSERT 0 1".to_owned())
            }
            Statement::NameById => {
                let database = self.shared.database.lock().unwrap();
                let rows: Vec<_> = database
                    .items
                    .get(&int(0))
                    .map(|name| name.clone().into_bytes())
                    .into_iter()
                    .collect();
                let tag = format!("SELECT {}", rows.len());
                Outcome::Rows(rows, tag)
            }
            Statement::Hold => tokio::select! {
                () = self.shared.release.notified() => {
                    Outcome::Rows(vec![int(0).to_be_bytes().to_vec()], "SELECT 1".to_owned())
                }
                () = self.cancel.notified() => {
                    Outcome::Error("57014", "canceling statement due to user request".to_owned())
                }
            },
            Statement::HangUp => Outcome::HangUp,
            Statement::Series => {
                let rows: Vec<_> = (1..=int(0)).map(|n| n.to_be_bytes().to_vec()).collect();
                let tag = format!("SELECT {}", rows.len());
                Outcome::Rows(rows, tag)
            }
        }
    }

    /// BEGIN (START TRANSACTION), COMMIT, ROLLBACK, LISTEN, NOTIFY and reading the table, in
    /// the simple protocol (text rows).
    async fn simple_query(&mut self, sql: &str, out: &mut BytesMut) {
        self.shared.event(format!("Query {sql}"));
        match sql {
            "BEGIN" | "START TRANSACTION" => {
                self.undo = Some(Vec::new());
                command_complete(out, "BEGIN");
            }
            "COMMIT" => {
                self.undo = None;
                command_complete(out, "COMMIT");
            }
            "ROLLBACK" => {
                let inserted = self.undo.take().unwrap_or_default();
                let mut database = self.shared.database.lock().unwrap();
                for id in inserted {
                    database.items.remove(&id);
                }
                command_complete(out, "ROLLBACK");
            }
            "SELECT id, name FROM items" => {
                row_description(out, &[("id", Type::INT4), ("name", Type::TEXT)], 0);
                let database = self.shared.database.lock().unwrap();
                for (id, name) in &database.items {
                    data_row(out, &[id.to_string().as_bytes(), name.as_bytes()]);
                }
                command_complete(out, &format!("SELECT {}", database.items.len()));
            }
            _ => {
                if let Some(channel) = sql.strip_prefix("LISTEN ") {
                    let mut database = self.shared.database.lock().unwrap();
                    let listeners = database.listeners.entry(channel.to_owned()).or_default();
                    listeners.push((self.pid, self.writer.clone()));
                    command_complete(out, "LISTEN");
                } else if let Some((channel, payload)) = sql
                    .strip_prefix("NOTIFY ")
                    .and_then(|rest| rest.split_once(", '"))
                    .and_then(|(channel, rest)| Some((channel, rest.strip_suffix('\'')?)))
                {
                    self.notify(channel, payload).await;
                    command_complete(out, "NOTIFY");
                } else {
                    error_response(out, "42601", &format!("syntax error: {sql}"));
                }
            }
        }
        let status = if self.undo.is_some() { b'T' } else { b'I' };
        message(out, b'Z', |b| b.put_u8(status));
    }

    /// Sends a NotificationResponse from this backend to every listener on
    /// `channel`, at once (PostgreSQL waits for the notifier's commit; these
    /// NOTIFYs are outside transactions).
    async fn notify(&self, channel: &str, payload: &str) {
        let listeners = {
            let database = self.shared.database.lock().unwrap();
            database.listeners.get(channel).cloned().unwrap_or_default()
        };
        let mut out = BytesMut::new();
        message(&mut out, b'A', |b| {
            b.put_i32(self.pid);
            put_cstr(b, channel);
            put_cstr(b, payload);
        });
        for (_, writer) in listeners {
            // A listener that went away meanwhile is no error of ours.
            let _ = writer.lock().await.write_all(&out).await;
        }
    }
}

impl Responder {
    pub(crate) fn config(&self, extra: &str) -> String {
        let (host, port) = (&self.host, self.port);
        format!("host={host} port={port} user=rt dbname=items application_name=rt-tests {extra}")
    }

    /// A client, its connection future spawned with `tokio::spawn` as
    /// tokio-postgres' docs show; that task is rt's.
    pub(crate) async fn connect(&self) -> (Client, JoinHandle<Result<(), tokio_postgres::Error>>) {
        let config = self.config("");
        let connect = tokio_postgres::connect(&config, NoTls);
        let (client, connection) = bounded("connect", connect).await.unwrap();
        assert_eq!(connection.parameter("server_version"), Some(SERVER_VERSION));
        let connection = tokio::spawn(connection);
        assert_rt_runs(connection.id());
        (client, connection)
    }

    pub(crate) async fn wait_for(&mut self, event: &str) {
        while bounded(event, self.events.recv()).await.unwrap() != event {}
    }

    /// The cancel key handed out last.
    pub(crate) fn last_key(&self) -> (i32, i32) {
        *self.database.lock().unwrap().keys.last().unwrap()
    }
}
