//! The process's stdin and stdout on the runtime's own event loop, when they are pipes or
//! sockets (what an MCP client hands a server it spawns).
//!
//! tokio's `stdin()` and `stdout()` read and write on its blocking-pool threads: two threads
//! started before `initialize` can be read, and every message handed between threads. A pipe
//! or socket can be polled like any other: a socket is read and written with `MSG_DONTWAIT`,
//! and a pipe is opened again through `/proc/self/fd` as a new, non-blocking open file (so the
//! descriptor the client gave, which another process may share, keeps its flags). Anything else
//! (a terminal, a file, `/dev/null`) falls back to tokio's.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use tokio::io::unix::AsyncFd;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// stdin as a pipe or socket on the event loop, or tokio's.
pub(crate) enum Input {
    Polled(Polled),
    Tokio(tokio::io::Stdin),
}

/// stdout as a pipe or socket on the event loop, or tokio's.
pub(crate) enum Output {
    Polled(Polled),
    Tokio(tokio::io::Stdout),
}

impl Input {
    /// The process's stdin. Needs a tokio runtime with IO enabled.
    pub(crate) fn stdin() -> Self {
        match Polled::open(0, false) {
            Some(polled) => Input::Polled(polled),
            None => Input::Tokio(tokio::io::stdin()),
        }
    }
}

impl Output {
    /// The process's stdout. Needs a tokio runtime with IO enabled.
    pub(crate) fn stdout() -> Self {
        match Polled::open(1, true) {
            Some(polled) => Output::Polled(polled),
            None => Output::Tokio(tokio::io::stdout()),
        }
    }
}

/// A non-blocking descriptor of a pipe or socket, registered with the event loop.
pub(crate) struct Polled {
    fd: AsyncFd<OwnedFd>,
    socket: bool,
}

impl Polled {
    /// `fd` as a polled descriptor, or `None` when it is neither a pipe nor a socket (or cannot
    /// be made one: no `/proc`, no runtime).
    fn open(fd: RawFd, write: bool) -> Option<Self> {
        // SAFETY: fstat writes the struct it is given and reads nothing else; a zeroed stat is
        // a valid value to overwrite.
        let mut stat: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: as above; an fd that is not open answers an error.
        if unsafe { libc::fstat(fd, &mut stat) } != 0 {
            return None;
        }
        let kind = stat.st_mode & libc::S_IFMT;
        let socket = kind == libc::S_IFSOCK;
        let own = if socket {
            // Same open socket; MSG_DONTWAIT makes each call non-blocking without flags.
            // SAFETY: F_DUPFD_CLOEXEC returns a new descriptor or -1.
            unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 3) }
        } else if kind == libc::S_IFIFO {
            let path = format!("/proc/self/fd/{fd}\0");
            let mode = if write {
                libc::O_WRONLY
            } else {
                libc::O_RDONLY
            };
            // SAFETY: the path is NUL-terminated; open returns a new descriptor or -1.
            unsafe {
                libc::open(
                    path.as_ptr().cast(),
                    mode | libc::O_NONBLOCK | libc::O_CLOEXEC,
                )
            }
        } else {
            return None;
        };
        if own < 0 {
            return None;
        }
        // SAFETY: `own` was just opened here and is owned by nothing else.
        let own = unsafe { OwnedFd::from_raw_fd(own) };
        let interest = if write {
            tokio::io::Interest::WRITABLE
        } else {
            tokio::io::Interest::READABLE
        };
        // SAFETY: `own` is an OwnedFd: it stays open, as the same descriptor, until the AsyncFd
        // that owns it is dropped. Called from `serve_stdio`, inside the runtime.
        let fd = unsafe { AsyncFd::register_with_interest(own, interest) }.ok()?;
        Some(Self { fd, socket })
    }

    fn read_some(&self, buf: &mut [u8]) -> io::Result<usize> {
        let fd = self.fd.get_ref().as_raw_fd();
        let (ptr, len) = (buf.as_mut_ptr().cast(), buf.len());
        // SAFETY: the buffer is valid for `len` bytes of writes for the call.
        let n = unsafe {
            if self.socket {
                libc::recv(fd, ptr, len, libc::MSG_DONTWAIT)
            } else {
                libc::read(fd, ptr, len)
            }
        };
        usize::try_from(n).map_err(|_| io::Error::last_os_error())
    }

    fn write_some(&self, buf: &[u8]) -> io::Result<usize> {
        let fd = self.fd.get_ref().as_raw_fd();
        let (ptr, len) = (buf.as_ptr().cast(), buf.len());
        // SAFETY: the buffer is valid for `len` bytes of reads for the call.
        let n = unsafe {
            if self.socket {
                // A client gone is an error here, never SIGPIPE.
                libc::send(fd, ptr, len, libc::MSG_DONTWAIT | libc::MSG_NOSIGNAL)
            } else {
                libc::write(fd, ptr, len)
            }
        };
        usize::try_from(n).map_err(|_| io::Error::last_os_error())
    }
}

impl AsyncRead for Polled {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        loop {
            let mut guard = ready!(self.fd.poll_read_ready(cx))?;
            let unfilled = buf.initialize_unfilled();
            match guard.try_io(|_| self.read_some(unfilled)) {
                Ok(Ok(n)) => {
                    buf.advance(n);
                    return Poll::Ready(Ok(()));
                }
                Ok(Err(e)) if e.kind() == io::ErrorKind::Interrupted => continue,
                Ok(Err(e)) => return Poll::Ready(Err(e)),
                // Not readable after all: wait for the next readiness.
                Err(_would_block) => continue,
            }
        }
    }
}

impl AsyncWrite for Polled {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        loop {
            let mut guard = ready!(self.fd.poll_write_ready(cx))?;
            match guard.try_io(|_| self.write_some(buf)) {
                Ok(Ok(n)) => return Poll::Ready(Ok(n)),
                Ok(Err(e)) if e.kind() == io::ErrorKind::Interrupted => continue,
                Ok(Err(e)) => return Poll::Ready(Err(e)),
                Err(_would_block) => continue,
            }
        }
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        // Nothing is buffered here.
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

impl AsyncRead for Input {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Input::Polled(p) => Pin::new(p).poll_read(cx, buf),
            Input::Tokio(t) => Pin::new(t).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Output {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Output::Polled(p) => Pin::new(p).poll_write(cx, buf),
            Output::Tokio(t) => Pin::new(t).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Output::Polled(p) => Pin::new(p).poll_flush(cx),
            Output::Tokio(t) => Pin::new(t).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Output::Polled(p) => Pin::new(p).poll_shutdown(cx),
            Output::Tokio(t) => Pin::new(t).poll_shutdown(cx),
        }
    }
}
