//! Opening the files a command reads as text (reports, piece files, graph6 lists, position
//! lists) the one way `probe -` reads its lines: `-` is stdin; a device (`/dev/zero`) or a
//! directory is refused naming it; a named FIFO's wait for its writer is told to `progress`
//! first, so no command waits without saying on what; a whole read stops at a cap and is
//! refused past it, so an endless input costs no more memory than the cap.
//!
//! The invariant: a reader made here never holds more than its cap (lines are capped by
//! [`super::lines::read_capped`]), whatever the input.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use super::error::{Error, Result, human_bytes};
use super::progress::Progress;

/// An input opened for reading: the name its messages give (`<stdin>` or the path) and its
/// bytes, buffered.
pub struct Input {
    pub name: String,
    pub reader: Box<dyn BufRead>,
}

/// Opens `path` (`-`: stdin) for reading as a stream. A character or block device and a
/// directory are refused; a named FIFO is told to `progress` as a note before the open waits
/// for its writer.
pub fn open(path: &Path, progress: &dyn Progress) -> Result<Input> {
    if path.as_os_str() == "-" {
        return Ok(Input {
            name: "<stdin>".into(),
            reader: Box::new(BufReader::new(std::io::stdin())),
        });
    }
    use std::os::unix::fs::FileTypeExt;
    let name = path.display().to_string();
    let kind = std::fs::metadata(path)
        .map_err(|e| Error::io(path, e))?
        .file_type();
    let refuse = |what: &str| {
        Err(Error::InputWhole {
            file: name.clone(),
            msg: format!("is {what}, not an input file (give a file, or a pipe)"),
        })
    };
    if kind.is_dir() {
        return refuse("a directory");
    }
    if kind.is_char_device() {
        return refuse("a character device");
    }
    if kind.is_block_device() {
        return refuse("a block device");
    }
    if kind.is_fifo() {
        progress.note(&format!(
            "{name} is a FIFO: waiting for a writer to open it and write the input"
        ));
    }
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    Ok(Input {
        name,
        reader: Box::new(BufReader::new(file)),
    })
}

/// Reads `path` (as [`open`] opens it) whole, refusing an input of more than `cap` bytes
/// naming it and the cap: the bytes read are at most `cap + 1`.
pub fn read_whole(path: &Path, cap: u64, progress: &dyn Progress) -> Result<(String, Vec<u8>)> {
    let Input { name, reader } = open(path, progress)?;
    let mut bytes = Vec::new();
    reader
        .take(cap.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(path, e))?;
    if bytes.len() as u64 > cap {
        return Err(Error::InputWhole {
            file: name,
            msg: format!(
                "longer than {}, more than this command reads of such an input",
                human_bytes(cap)
            ),
        });
    }
    Ok((name, bytes))
}

/// The most bytes a command reads of a JSON report (`research chart`, `sweep --merge`): the
/// largest report retrodb writes (a census piece of every graph on 10 vertices, a tiers report
/// of a 25-cell board) is a few megabytes.
pub const MAX_REPORT: u64 = 256 << 20;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::progress::Silent;

    #[test]
    fn devices_and_directories_are_refused_and_long_inputs_capped() {
        let dir = tempfile::tempdir().unwrap();
        let e = read_whole(Path::new("/dev/zero"), 10, &Silent)
            .err()
            .unwrap();
        assert!(
            e.to_string().contains("/dev/zero: is a character device"),
            "{e}"
        );
        let e = read_whole(dir.path(), 10, &Silent).err().unwrap();
        assert!(e.to_string().contains("is a directory"), "{e}");
        let file = dir.path().join("f");
        std::fs::write(&file, b"0123456789").unwrap();
        assert_eq!(read_whole(&file, 10, &Silent).unwrap().1, b"0123456789");
        let e = read_whole(&file, 9, &Silent).err().unwrap();
        assert!(e.to_string().contains("longer than 9 B"), "{e}");
    }
}
