//! Reading a file a user named (a deck, a policy): a regular file of bounded size, or a clear
//! refusal, decided before the work starts.
//!
//! A path can name anything: a FIFO (opening it waits for a writer that never comes), a
//! character device such as `/dev/zero` (reading never ends), a directory, or a file far larger
//! than any valid one. So the file is opened without blocking, checked on the open descriptor
//! (the thing actually read, not whatever the path named a moment earlier), and read through a
//! limit of one byte more than allowed, so a file that grows while it is read is refused too.

use std::fs::{File, OpenOptions};
use std::io::Read;

/// Why a file could not be read: the words after "cannot read …" in the caller's message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileRefused(pub String);

/// The bytes of the regular file at `path`, at most `max_bytes` of them.
pub fn read_regular(path: &str, max_bytes: u64) -> Result<Vec<u8>, FileRefused> {
    let file = open_nonblocking(path).map_err(|e| FileRefused(e.to_string()))?;
    let meta = file.metadata().map_err(|e| FileRefused(e.to_string()))?;
    if !meta.is_file() {
        return Err(FileRefused(format!(
            "it is {}, not a regular file",
            kind_of(&meta.file_type())
        )));
    }
    if meta.len() > max_bytes {
        return Err(too_big(meta.len(), max_bytes));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(max_bytes + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| FileRefused(e.to_string()))?;
    if bytes.len() as u64 > max_bytes {
        return Err(too_big(bytes.len() as u64, max_bytes));
    }
    Ok(bytes)
}

/// The UTF-8 text of the regular file at `path`, at most `max_bytes` long.
pub fn read_regular_text(path: &str, max_bytes: u64) -> Result<String, FileRefused> {
    String::from_utf8(read_regular(path, max_bytes)?)
        .map_err(|e| FileRefused(format!("it is not UTF-8 text: {e}")))
}

fn too_big(len: u64, max_bytes: u64) -> FileRefused {
    FileRefused(format!(
        "it has {len} bytes or more; at most {max_bytes} are read"
    ))
}

#[cfg(unix)]
fn open_nonblocking(path: &str) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    // O_NONBLOCK: opening a FIFO returns at once instead of waiting for a writer; on a regular
    // file it changes nothing.
    OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
}

#[cfg(not(unix))]
fn open_nonblocking(path: &str) -> std::io::Result<File> {
    OpenOptions::new().read(true).open(path)
}

fn kind_of(t: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if t.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("panda-user-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join(name)
    }

    #[test]
    fn a_regular_file_within_the_limit_is_read_whole() {
        let p = scratch("ok.txt");
        std::fs::write(&p, "hello").unwrap();
        assert_eq!(read_regular_text(p.to_str().unwrap(), 5).unwrap(), "hello");
    }

    #[test]
    fn a_file_over_the_limit_is_refused_before_it_is_read() {
        let p = scratch("big.txt");
        std::fs::write(&p, "hello!").unwrap();
        let err = read_regular(p.to_str().unwrap(), 5).unwrap_err();
        assert!(err.0.contains("at most 5"), "{}", err.0);
    }

    #[test]
    fn a_directory_is_refused() {
        let p = scratch("dir");
        std::fs::create_dir_all(&p).unwrap();
        let err = read_regular(p.to_str().unwrap(), 5).unwrap_err();
        assert!(err.0.contains("directory"), "{}", err.0);
    }

    #[cfg(unix)]
    #[test]
    fn dev_zero_is_refused_and_not_read() {
        let err = read_regular("/dev/zero", 1 << 20).unwrap_err();
        assert!(err.0.contains("character device"), "{}", err.0);
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_without_a_writer_is_refused_at_once() {
        let p = scratch("fifo");
        let _ = std::fs::remove_file(&p);
        let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path; mkfifo only creates a file.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let err = read_regular(p.to_str().unwrap(), 1 << 20).unwrap_err();
        assert!(err.0.contains("FIFO"), "{}", err.0);
    }

    #[test]
    fn text_that_is_not_utf8_is_refused() {
        let p = scratch("bin");
        std::fs::write(&p, [0xff, 0xfe]).unwrap();
        let err = read_regular_text(p.to_str().unwrap(), 5).unwrap_err();
        assert!(err.0.contains("UTF-8"), "{}", err.0);
    }
}
