//! JSON values between the engine and Python: a command's fields come in as Python objects and
//! are read by the engine's one parser (`Command::from_json`, with its messages naming the field);
//! a result's serde form goes out as plain Python objects, which the package's generated result
//! classes (`pagesight/_results.py`) read.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::{Map, Number, Value};

/// How deep a Python object may nest before it is refused: the engine refuses deeper JSON too,
/// and a self-referencing list would otherwise recurse until the stack ends.
const MAX_DEPTH: usize = 128;

/// A JSON value on its way to Python: converted under the GIL where the awaiting future is
/// completed, not on the runtime's threads.
pub struct Json(pub Value);

impl<'py> IntoPyObject<'py> for Json {
    type Target = PyAny;
    type Output = Bound<'py, PyAny>;
    type Error = PyErr;

    fn into_pyobject(self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_python(py, self.0)
    }
}

/// A JSON value as Python objects: `None`, `bool`, `int`, `float`, `str`, `list`, `dict`.
pub fn to_python(py: Python<'_>, value: Value) -> PyResult<Bound<'_, PyAny>> {
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, b).to_owned().into_any(),
        Value::Number(n) => number_to_python(py, &n)?,
        Value::String(s) => PyString::new(py, &s).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_python(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (key, item) in map {
                dict.set_item(key, to_python(py, item)?)?;
            }
            dict.into_any()
        }
    })
}

fn number_to_python<'py>(py: Python<'py>, n: &Number) -> PyResult<Bound<'py, PyAny>> {
    if let Some(i) = n.as_i64() {
        return Ok(i.into_pyobject(py)?.into_any());
    }
    if let Some(u) = n.as_u64() {
        return Ok(u.into_pyobject(py)?.into_any());
    }
    Ok(PyFloat::new(py, n.as_f64().unwrap_or(f64::NAN)).into_any())
}

/// A Python object as a JSON value, for the engine's parser. Tuples read as lists; keys must be
/// strings; anything else is a `TypeError` naming its type.
pub fn from_python(object: &Bound<'_, PyAny>) -> PyResult<Value> {
    from_python_at(object, 0)
}

fn from_python_at(object: &Bound<'_, PyAny>, depth: usize) -> PyResult<Value> {
    if depth > MAX_DEPTH {
        return Err(PyTypeError::new_err(format!(
            "a command's value nests deeper than {MAX_DEPTH} levels"
        )));
    }
    if object.is_none() {
        return Ok(Value::Null);
    }
    // `bool` before `int`: in Python a bool is an int.
    if let Ok(b) = object.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if let Ok(i) = object.cast::<PyInt>() {
        if let Ok(v) = i.extract::<i64>() {
            return Ok(Value::from(v));
        }
        if let Ok(v) = i.extract::<u64>() {
            return Ok(Value::from(v));
        }
        return Err(PyTypeError::new_err(format!(
            "the whole number {i} is too large for a command"
        )));
    }
    if let Ok(f) = object.cast::<PyFloat>() {
        return Ok(Number::from_f64(f.value())
            .map(Value::Number)
            .unwrap_or(Value::Null));
    }
    if let Ok(s) = object.cast::<PyString>() {
        return Ok(Value::String(s.to_cow()?.into_owned()));
    }
    if let Ok(list) = object.cast::<PyList>() {
        return list
            .iter()
            .map(|item| from_python_at(&item, depth + 1))
            .collect::<PyResult<Vec<_>>>()
            .map(Value::Array);
    }
    if let Ok(tuple) = object.cast::<PyTuple>() {
        return tuple
            .iter()
            .map(|item| from_python_at(&item, depth + 1))
            .collect::<PyResult<Vec<_>>>()
            .map(Value::Array);
    }
    if let Ok(dict) = object.cast::<PyDict>() {
        let mut map = Map::with_capacity(dict.len());
        for (key, item) in dict.iter() {
            let Ok(key) = key.cast::<PyString>() else {
                return Err(PyTypeError::new_err(format!(
                    "a command's keys are strings, not {}",
                    type_name(&key)
                )));
            };
            map.insert(
                key.to_cow()?.into_owned(),
                from_python_at(&item, depth + 1)?,
            );
        }
        return Ok(Value::Object(map));
    }
    // os.PathLike (a pathlib.Path given for `upload`'s files, a screenshot's path).
    if let Ok(path) = object.call_method0("__fspath__") {
        if let Ok(s) = path.cast::<PyString>() {
            return Ok(Value::String(s.to_cow()?.into_owned()));
        }
    }
    Err(PyTypeError::new_err(format!(
        "a command's values are None, bool, int, float, str, list, tuple, dict or a path, not {}",
        type_name(object)
    )))
}

fn type_name(object: &Bound<'_, PyAny>) -> String {
    object
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "an object of unknown type".into())
}
