//! A misbehaving HTTP server for the providers' fault tests: a tokio `TcpListener` on
//! a free loopback port speaking just enough HTTP/1.1 by hand. It reads each
//! request's head and `Content-Length` body, records it ([`Request`]), and answers
//! with the next [`Answer`] of its script: a status with headers and a body, a
//! server-sent event stream (whole, cut after some bytes, or going silent), or no
//! answer at all. Every answer closes its connection (`Connection: close`), so a
//! retry is a new connection; a stream's body is close-delimited (its end is the
//! socket's end) unless it is asked for in chunked transfer encoding.
//!
//! ```ignore
//! let server = FaultServer::start(vec![Answer::status(500, "busy"), Answer::stream(chunks)]).await;
//! let client = OpenAiClient::new(&server.url("/v1"), "m", None, limits)?;
//! // … call the client …
//! assert_eq!(server.requests().len(), 2);
//! ```

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

/// One scripted way to answer a request.
#[derive(Clone, Debug)]
pub enum Answer {
    /// A complete answer with a `Content-Length`.
    Status { status: u16, headers: Vec<(String, String)>, body: String },
    /// `200 text/event-stream`, the chunks written one by one `gap` apart, then the
    /// connection closed. With `cut_after`, only that many bytes of the chunks are
    /// sent before closing. Not `chunked`, the body is close-delimited (no length),
    /// so a cut looks like the stream's end; `chunked`, each chunk is an HTTP chunk
    /// and a cut leaves the body without its terminating chunk, a broken transfer.
    Stream { chunks: Vec<String>, gap: Duration, cut_after: Option<usize>, chunked: bool },
    /// The head and `chunks` of a stream, then silence with the socket held open.
    Trickle { chunks: Vec<String> },
    /// No answer at all: the request is read and the socket held open.
    Silent,
    /// The request is read, then the connection reset (a TCP RST) before any byte.
    Reset,
}

impl Answer {
    /// A JSON (or any) body with `status` and no extra headers.
    pub fn status(status: u16, body: &str) -> Answer {
        Answer::Status { status, headers: Vec::new(), body: body.to_owned() }
    }

    /// `status` with `headers` and `body`.
    pub fn status_with(status: u16, headers: &[(&str, &str)], body: &str) -> Answer {
        let headers = headers.iter().map(|(name, value)| (name.to_string(), value.to_string())).collect();
        Answer::Status { status, headers, body: body.to_owned() }
    }

    /// A whole stream of `chunks`, each written on its own.
    pub fn stream(chunks: Vec<String>) -> Answer {
        Answer::Stream { chunks, gap: Duration::from_millis(5), cut_after: None, chunked: false }
    }

    /// The same in chunked transfer encoding, ended by its terminating chunk.
    pub fn chunked_stream(chunks: Vec<String>) -> Answer {
        Answer::Stream { chunks, gap: Duration::from_millis(5), cut_after: None, chunked: true }
    }

    /// The first `bytes` bytes of a stream of `chunks`, then the socket closed.
    pub fn cut_stream(chunks: Vec<String>, bytes: usize) -> Answer {
        Answer::Stream { chunks, gap: Duration::from_millis(5), cut_after: Some(bytes), chunked: false }
    }

    /// The same in chunked transfer encoding: the transfer itself breaks.
    pub fn cut_chunked_stream(chunks: Vec<String>, bytes: usize) -> Answer {
        Answer::Stream { chunks, gap: Duration::from_millis(5), cut_after: Some(bytes), chunked: true }
    }
}

/// A request as the server read it.
#[derive(Clone, Debug)]
pub struct Request {
    pub method: String,
    pub path: String,
    /// Header names in lower case, in the order sent.
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Request {
    /// The value of the header `name` (any case), if sent.
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers.iter().find(|(n, _)| *n == name).map(|(_, v)| v.as_str())
    }

    /// The body as JSON (panics when it is not).
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("the request body is not JSON ({e}): {}", self.body))
    }
}

/// A running fault server; it stops (and drops its held connections) when dropped.
pub struct FaultServer {
    /// `http://127.0.0.1:PORT`.
    pub base_url: String,
    requests: Arc<Mutex<Vec<Request>>>,
    accepting: JoinHandle<()>,
}

impl FaultServer {
    /// Starts a server that answers its requests with `answers`, in order; a request
    /// past the script gets a 599 saying so.
    pub async fn start(answers: Vec<Answer>) -> FaultServer {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("a loopback port for the fault server");
        let base_url = format!("http://{}", listener.local_addr().expect("the fault server's address"));
        let requests = Arc::new(Mutex::new(Vec::new()));
        let recorded = Arc::clone(&requests);
        let accepting = tokio::spawn(async move {
            let mut answers = answers.into_iter();
            let mut connections = tokio::task::JoinSet::new();
            loop {
                let Ok((socket, _)) = listener.accept().await else { return };
                let answer = answers.next();
                let recorded = Arc::clone(&recorded);
                // Held in the set, so dropping the server (aborting this task) closes them.
                connections.spawn(serve(socket, answer, recorded));
            }
        });
        FaultServer { base_url, requests, accepting }
    }

    /// `base_url` followed by `path` (`/v1`).
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base_url)
    }

    /// The requests read so far.
    pub fn requests(&self) -> Vec<Request> {
        self.requests.lock().expect("the request log").clone()
    }
}

impl Drop for FaultServer {
    fn drop(&mut self) {
        self.accepting.abort();
    }
}

/// Reads one request from `socket`, records it and answers it with `answer`.
async fn serve(mut socket: TcpStream, answer: Option<Answer>, recorded: Arc<Mutex<Vec<Request>>>) {
    let Some(request) = read_request(&mut socket).await else { return };
    recorded.lock().expect("the request log").push(request);
    let answer = answer.unwrap_or_else(|| Answer::status(599, "the fault server has no answer left for this request"));
    match answer {
        Answer::Status { status, headers, body } => {
            let mut head = format!("HTTP/1.1 {status} {}\r\nContent-Length: {}\r\nConnection: close\r\n", reason(status), body.len());
            if !headers.iter().any(|(name, _)| name.eq_ignore_ascii_case("content-type")) {
                head.push_str("Content-Type: application/json\r\n");
            }
            for (name, value) in &headers {
                head.push_str(&format!("{name}: {value}\r\n"));
            }
            head.push_str("\r\n");
            let _ = socket.write_all(head.as_bytes()).await;
            let _ = socket.write_all(body.as_bytes()).await;
            let _ = socket.shutdown().await;
        }
        Answer::Stream { chunks, gap, cut_after, chunked } => {
            if write_stream_head(&mut socket, chunked).await.is_err() {
                return;
            }
            let mut left = cut_after.unwrap_or(usize::MAX);
            for chunk in &chunks {
                let piece = &chunk.as_bytes()[..chunk.len().min(left)];
                let framed = if chunked {
                    // The chunk's full size is announced, so a cut piece is a broken chunk.
                    [format!("{:x}\r\n", chunk.len()).as_bytes(), piece, if piece.len() == chunk.len() { b"\r\n" } else { b"" }].concat()
                } else {
                    piece.to_vec()
                };
                if socket.write_all(&framed).await.is_err() {
                    return;
                }
                let _ = socket.flush().await;
                left -= piece.len();
                if left == 0 {
                    break;
                }
                tokio::time::sleep(gap).await;
            }
            if chunked && cut_after.is_none() {
                let _ = socket.write_all(b"0\r\n\r\n").await;
            }
            // The end of the body (close-delimited) or of a transfer cut short (chunked).
            let _ = socket.shutdown().await;
        }
        Answer::Trickle { chunks } => {
            if write_stream_head(&mut socket, false).await.is_err() {
                return;
            }
            for chunk in &chunks {
                if socket.write_all(chunk.as_bytes()).await.is_err() {
                    return;
                }
                let _ = socket.flush().await;
            }
            hold_until_closed(&mut socket).await;
        }
        Answer::Silent => hold_until_closed(&mut socket).await,
        Answer::Reset => {
            // Closing with a zero linger sends RST instead of FIN.
            let _ = socket.set_zero_linger();
            drop(socket);
        }
    }
}

async fn write_stream_head(socket: &mut TcpStream, chunked: bool) -> std::io::Result<()> {
    let encoding = if chunked { "Transfer-Encoding: chunked\r\n" } else { "" };
    let head =
        format!("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n{encoding}Connection: close\r\n\r\n");
    socket.write_all(head.as_bytes()).await?;
    socket.flush().await
}

/// Keeps the socket open until the client closes it (or the server is dropped).
async fn hold_until_closed(socket: &mut TcpStream) {
    let mut sink = [0u8; 1024];
    while matches!(socket.read(&mut sink).await, Ok(n) if n > 0) {}
}

/// The request's head and its `Content-Length` body; None when the client went away.
async fn read_request(socket: &mut TcpStream) -> Option<Request> {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(at) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            break at;
        }
        let n = socket.read(&mut chunk).await.ok().filter(|n| *n > 0)?;
        buffer.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut request_line = lines.next()?.split(' ');
    let method = request_line.next()?.to_owned();
    let path = request_line.next()?.to_owned();
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    let length: usize = headers.iter().find(|(n, _)| n == "content-length").and_then(|(_, v)| v.parse().ok()).unwrap_or(0);
    let mut body = buffer[head_end + 4..].to_vec();
    while body.len() < length {
        let n = socket.read(&mut chunk).await.ok().filter(|n| *n > 0)?;
        body.extend_from_slice(&chunk[..n]);
    }
    Some(Request { method, path, headers, body: String::from_utf8_lossy(&body).into_owned() })
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Unknown",
    }
}
