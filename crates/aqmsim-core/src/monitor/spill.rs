//! Column files for the logs that grow with simulated time (the drop log, the TCP state
//! series, the RTT samples): full chunks of rows are appended to one file per column,
//! created and unlinked at once in a directory, so nothing is left behind even if the
//! process dies, and memory stays flat however long the run. The caller maps or reads the
//! files at the end.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

/// Rows kept in memory before a chunk is written out.
pub const SPILL_ROWS: usize = 1 << 16;

/// A column's values as little-endian bytes, one after another.
pub trait LeColumn {
    /// Bytes per value.
    const WIDTH: u64;
    fn le_bytes(v: &[Self]) -> Vec<u8>
    where
        Self: Sized;
    fn from_le(b: &[u8]) -> Vec<Self>
    where
        Self: Sized;
}

macro_rules! le_column {
    ($($t:ty),*) => {$(
        impl LeColumn for $t {
            const WIDTH: u64 = std::mem::size_of::<$t>() as u64;
            fn le_bytes(v: &[$t]) -> Vec<u8> {
                v.iter().flat_map(|x| x.to_le_bytes()).collect()
            }
            fn from_le(b: &[u8]) -> Vec<$t> {
                b.chunks_exact(std::mem::size_of::<$t>()).map(|c| <$t>::from_le_bytes(c.try_into().expect("chunk of one value"))).collect()
            }
        }
    )*};
}
le_column!(f64, u32, i32, u8);

/// One file per column; every file holds exactly `rows` values.
#[derive(Debug)]
pub struct Spill {
    pub files: Vec<File>,
    /// Rows in the files.
    pub rows: usize,
    widths: Vec<u64>,
}

impl Spill {
    /// New empty files in `dir`, named (briefly: they are unlinked at once) after `what` and
    /// the columns.
    pub fn create(dir: &Path, what: &str, columns: &[(&str, u64)]) -> std::io::Result<Spill> {
        static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut files = Vec::with_capacity(columns.len());
        for (col, _) in columns {
            let path = dir.join(format!("aqmsim-{what}-{}-{n}-{col}.bin", std::process::id()));
            let f = std::fs::OpenOptions::new().read(true).write(true).create_new(true).open(&path)?;
            let _ = std::fs::remove_file(&path);
            files.push(f);
        }
        Ok(Spill { files, rows: 0, widths: columns.iter().map(|c| c.1).collect() })
    }

    /// Append `rows` rows given column by column as bytes. On failure every file is cut
    /// back to the rows it held, and the error returned.
    pub fn append(&mut self, cols: &[Vec<u8>], rows: usize) -> std::io::Result<()> {
        let result = self.files.iter_mut().zip(cols).try_for_each(|(f, c)| f.write_all(c));
        if result.is_err() {
            for (f, &w) in self.files.iter().zip(&self.widths) {
                let _ = f.set_len(self.rows as u64 * w);
            }
            let _ = self.files.iter_mut().try_for_each(|f| f.seek(SeekFrom::End(0)).map(|_| ()));
            return result;
        }
        self.rows += rows;
        Ok(())
    }

    /// Every column's bytes, read back.
    pub fn read_all(self) -> std::io::Result<Vec<Vec<u8>>> {
        let mut out = Vec::with_capacity(self.files.len());
        for mut f in self.files {
            let mut b = Vec::new();
            f.seek(SeekFrom::Start(0))?;
            f.read_to_end(&mut b)?;
            out.push(b);
        }
        Ok(out)
    }
}

/// A log of rows kept column by column that writes full chunks out to a [`Spill`].
pub trait Spilling {
    /// What the files are named after.
    const WHAT: &'static str;
    /// (name, bytes per value) of every column.
    fn columns() -> Vec<(&'static str, u64)>;
    /// Rows in memory.
    fn mem_rows(&self) -> usize;
    /// The in-memory rows, column by column, as bytes.
    fn chunk(&self) -> Vec<Vec<u8>>;
    /// Forget the in-memory rows.
    fn clear_mem(&mut self);
    /// Put rows read back from files (column by column) before the in-memory ones.
    fn prepend(&mut self, cols: Vec<Vec<u8>>);
    fn state(&mut self) -> &mut SpillState;
    fn state_ref(&self) -> &SpillState;

    /// Keep at most [`SPILL_ROWS`] rows in memory; write full chunks to files created in
    /// `dir`. If the files cannot be written, the rows simply stay in memory.
    fn spill_to(&mut self, dir: std::path::PathBuf) {
        self.state().dir = Some(dir);
    }

    /// The rows written out so far (the first `rows` rows, before the in-memory ones).
    fn spilled(&self) -> Option<&Spill> {
        self.state_ref().spilled.as_ref()
    }

    /// Rows logged (in memory and written out).
    fn len(&self) -> usize {
        self.mem_rows() + self.spilled().map_or(0, |s| s.rows)
    }

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// After a push: write a full chunk out.
    #[inline]
    fn after_push(&mut self)
    where
        Self: Sized,
    {
        if self.mem_rows() >= SPILL_ROWS && self.state_ref().dir.is_some() {
            write_out(self);
        }
    }

    /// At the end of the run: write the tail out too when rows were written out.
    fn finish_spill(&mut self)
    where
        Self: Sized,
    {
        finish(self);
    }

    /// Every row in memory (reads back what was written out).
    fn load(&mut self) -> std::io::Result<()>
    where
        Self: Sized,
    {
        load(self)
    }
}

/// Where a log spills to, and what it spilled.
#[derive(Debug, Default)]
pub struct SpillState {
    pub dir: Option<std::path::PathBuf>,
    pub spilled: Option<Spill>,
}

/// Write the in-memory rows out (creating the files on first use) and forget them; on
/// failure keep them in memory and stop spilling.
#[cold]
#[inline(never)]
pub fn write_out<L: Spilling>(log: &mut L) {
    let Some(dir) = log.state().dir.clone() else { return };
    if log.state().spilled.is_none() {
        match Spill::create(&dir, L::WHAT, &L::columns()) {
            Ok(s) => log.state().spilled = Some(s),
            Err(_) => {
                log.state().dir = None;
                return;
            }
        }
    }
    let chunk = log.chunk();
    let rows = log.mem_rows();
    let mut spill = log.state().spilled.take().expect("created above");
    match spill.append(&chunk, rows) {
        Ok(()) => log.clear_mem(),
        Err(_) => log.state().dir = None,
    }
    log.state().spilled = Some(spill);
}

/// At the end of the run: if rows were written out, write the rest too, so that the files
/// hold every row (if that fails, the last rows stay in memory, after them).
pub fn finish<L: Spilling>(log: &mut L) {
    if log.state().spilled.is_some() && log.mem_rows() > 0 {
        write_out(log);
    }
    log.state().dir = None;
}

/// Every row in memory: reads back what was written out.
pub fn load<L: Spilling>(log: &mut L) -> std::io::Result<()> {
    let Some(sp) = log.state().spilled.take() else { return Ok(()) };
    let cols = sp.read_all()?;
    log.prepend(cols);
    Ok(())
}

/// `head` (read back) followed by `tail`.
pub fn joined<T: LeColumn + Copy>(head: &[u8], tail: &mut Vec<T>) -> Vec<T> {
    let mut v = T::from_le(head);
    v.append(tail);
    v
}
