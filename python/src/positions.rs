//! `Table.positions()`: every position a table holds with its value, in index order, read a
//! block at a time with the interpreter released.

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple};
use retrodb::Value;
use retrodb::table::Table as RawTable;

use crate::{error, value_str};

/// An iterator over a table's positions (`Table.positions()`).
#[pyclass(module = "retrodb", name = "Positions")]
pub(crate) struct Positions {
    table: Arc<RawTable>,
    next: u64,
    buffer: std::collections::VecDeque<(String, Value)>,
}

impl Positions {
    pub(crate) fn new(table: Arc<RawTable>) -> Positions {
        Positions {
            table,
            next: 0,
            buffer: Default::default(),
        }
    }
}

/// Indices a block of `Table.positions()` covers.
const POSITIONS_BLOCK: u64 = 1 << 14;

#[pymethods]
impl Positions {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(
        mut slf: PyRefMut<'py, Self>,
        py: Python<'py>,
    ) -> PyResult<Option<Bound<'py, PyTuple>>> {
        let size = slf.table.header().size;
        while slf.buffer.is_empty() && slf.next < size {
            let start = slf.next;
            let end = (start + POSITIONS_BLOCK).min(size);
            let table = Arc::clone(&slf.table);
            let block = py
                .detach(|| {
                    table
                        .used(start..end)
                        .map(|r| r.map(|(pos, v)| (table.position_text(pos), v)))
                        .collect::<retrodb::Result<Vec<_>>>()
                })
                .map_err(error)?;
            slf.next = end;
            slf.buffer.extend(block);
        }
        match slf.buffer.pop_front() {
            None => Ok(None),
            Some((text, v)) => Ok(Some(PyTuple::new(
                py,
                [PyString::new(py, &text), value_str(py, v)],
            )?)),
        }
    }
}
