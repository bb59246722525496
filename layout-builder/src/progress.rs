//! Saying that a GPU build is running. Cargo shows a build script only as `<crate>(build)` while
//! it runs and keeps its output until it ends, so a kernel crate's minutes in LLVM would
//! otherwise look like a hang: past [`QUIET`], the builder writes a line to the terminal (when
//! there is one) naming the crate and the target, again every [`EVERY`]; and a build that took
//! longer than [`QUIET`] ends with a cargo warning saying how long.

use std::io::Write;
use std::sync::mpsc::{channel, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long a build runs before the builder says so.
pub const QUIET: Duration = Duration::from_secs(10);
/// How often it says so again.
pub const EVERY: Duration = Duration::from_secs(30);

/// A running build's reporter; [`Progress::finish`] ends it.
pub struct Progress {
    what: String,
    start: Instant,
    stop: Sender<()>,
    thread: Option<JoinHandle<()>>,
}

impl Progress {
    /// Starts reporting on the build `what` (e.g. "my-kernels for nvptx64-nvidia-cuda (sm_90)").
    pub fn start(what: String) -> Progress {
        let (stop, stopped) = channel::<()>();
        let start = Instant::now();
        let said = what.clone();
        let thread = std::thread::spawn(move || {
            let mut wait = QUIET;
            while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(wait) {
                let secs = start.elapsed().as_secs();
                tell(&format!("building {} to PTX: {} s so far", said, secs));
                wait = EVERY;
            }
        });
        Progress {
            what,
            start,
            stop,
            thread: Some(thread),
        }
    }

    /// Ends the reports; in a build script, a build that took longer than [`QUIET`] becomes a
    /// cargo warning with its time.
    pub fn finish(mut self) {
        self.quiet();
        let took = self.start.elapsed();
        if took > QUIET && std::env::var_os("OUT_DIR").is_some() {
            println!(
                "cargo:warning=building {} to PTX took {} s",
                self.what,
                took.as_secs()
            );
        }
    }
}

impl Progress {
    fn quiet(&mut self) {
        let _ = self.stop.send(());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// A build that failed says nothing more once its error is returned.
impl Drop for Progress {
    fn drop(&mut self) {
        self.quiet();
    }
}

/// One line on the terminal (cargo holds a build script's stderr until it ends), after clearing
/// cargo's progress bar; nothing without a terminal.
fn tell(line: &str) {
    match std::fs::OpenOptions::new().write(true).open("/dev/tty") {
        Ok(mut tty) => {
            let _ = writeln!(tty, "\r\x1b[K{:>12} {}", "Building", line);
        }
        Err(_) => eprintln!("{}", line),
    }
}
