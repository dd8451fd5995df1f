//! The folders commands may read and write files in, and the one way they write a file.
//!
//! Why a fence at all: the paths of `upload`, a screenshot's or a snapshot's `path`, and a
//! capture's output come from whoever sends commands — often a model reading pages an attacker
//! wrote. Without a fence, a prompt on a page could have an agent upload `~/.ssh/id_ed25519` to a
//! form, or overwrite a file anywhere the process can write. So every caller-given path is
//! checked here against a short list of folders, the same way for every front end (the
//! [`SessionOptions`](crate::SessionOptions) carry the list; `run`, MCP and the C library only
//! parse their flags into it).
//!
//! Why paths are resolved before they are compared: a name can leave a folder through `..` or
//! through a symbolic link inside it, so the check is made on the path the system would open —
//! the canonical path of a file that exists, or the canonical path of the nearest folder that
//! exists with the rest of the name joined on. A folder outside the fence is refused before
//! anything about it is said (whether it exists, whether it can be written).
//!
//! Why a write goes through a temporary file: a full disk, a killed process or an error half way
//! must not leave half a file under the name asked for. The bytes go to a temporary file in the
//! same folder (so the rename stays on one file system), are synced, and the file is renamed
//! over the name asked for; on failure the temporary file is removed.

use std::fmt;
use std::io::Write;
use std::path::{Component, Path, PathBuf};

use crate::error::{Error, Result};

/// The flag and option that add a folder, named in every refusal.
const HOW_TO_ALLOW: &str =
    "allow its folder with --allow-dir DIR (\"allowDirs\" in the C library's launch options)";

/// The folders whose files commands may read and write: a path resolved (symbolic links
/// followed, relative paths taken from the current directory) must lie inside one of them.
#[derive(Clone, PartialEq, Eq)]
pub struct AllowedFolders {
    /// Canonical paths, without duplicates.
    folders: Vec<PathBuf>,
}

impl Default for AllowedFolders {
    /// The current directory and the system's temporary folder.
    fn default() -> Self {
        let mut folders = AllowedFolders {
            folders: Vec::new(),
        };
        let defaults = [std::env::current_dir().ok(), Some(std::env::temp_dir())];
        for folder in defaults.into_iter().flatten() {
            // A default that cannot be resolved (a current directory since removed) is left out
            // rather than failing every session.
            if let Ok(canonical) = std::fs::canonicalize(&folder) {
                folders.push(canonical);
            }
        }
        folders
    }
}

impl fmt::Debug for AllowedFolders {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(&self.folders).finish()
    }
}

impl AllowedFolders {
    /// No folder at all: every path is refused.
    pub fn none() -> AllowedFolders {
        AllowedFolders {
            folders: Vec::new(),
        }
    }

    /// The defaults (the current directory and the temporary folder) and `more`. Each of `more`
    /// must be a folder that exists; relative ones are taken from the current directory.
    pub fn with_defaults<P: AsRef<Path>>(more: &[P]) -> Result<AllowedFolders> {
        let mut folders = AllowedFolders::default();
        for folder in more {
            folders.add(folder.as_ref())?;
        }
        Ok(folders)
    }

    /// Allows `folder` (and everything under it) too. It must exist and be a folder.
    pub fn add(&mut self, folder: &Path) -> Result<()> {
        let canonical = std::fs::canonicalize(folder).map_err(|e| {
            Error::invalid_argument(format!(
                "cannot allow the folder {}: {e}; give a folder that exists",
                folder.display()
            ))
        })?;
        if !canonical.is_dir() {
            return Err(Error::invalid_argument(format!(
                "cannot allow {}: it is not a folder",
                folder.display()
            )));
        }
        self.push(canonical);
        Ok(())
    }

    fn push(&mut self, canonical: PathBuf) {
        if !self.folders.contains(&canonical) {
            self.folders.push(canonical);
        }
    }

    /// The allowed folders, canonical.
    pub fn folders(&self) -> &[PathBuf] {
        &self.folders
    }

    /// Whether a resolved path lies inside one of the folders.
    fn contains(&self, resolved: &Path) -> bool {
        // `Path::starts_with` compares whole components: /tmpfoo is not inside /tmp.
        self.folders.iter().any(|f| resolved.starts_with(f))
    }

    /// `path` resolved (see the module docs) if it lies inside an allowed folder, else an
    /// `INVALID_ARGUMENT` naming it, the allowed folders and how to allow more. The file need
    /// not exist.
    pub fn check(&self, path: &str) -> Result<PathBuf> {
        if path.trim().is_empty() {
            return Err(Error::invalid_argument("the file path is empty"));
        }
        let resolved = resolve(Path::new(path))?;
        if self.contains(&resolved) {
            return Ok(resolved);
        }
        let shown = if resolved.as_os_str() == std::ffi::OsStr::new(path) {
            path.to_string()
        } else {
            format!("{path} (which is {})", resolved.display())
        };
        Err(Error::invalid_argument(format!(
            "{shown} is outside the folders files may be read from and written to ({}); use a \
             path inside one of them, or {HOW_TO_ALLOW}",
            self.list()
        )))
    }

    /// The resolved path of a regular file to read, inside an allowed folder.
    pub fn check_read(&self, path: &str) -> Result<PathBuf> {
        let resolved = self.check(path)?;
        match std::fs::metadata(&resolved) {
            Ok(meta) if meta.is_file() => Ok(resolved),
            Ok(_) => Err(Error::invalid_argument(format!(
                "{path} is not a regular file; give the path of a file"
            ))),
            Err(e) => Err(Error::invalid_argument(format!(
                "the file {path} cannot be read ({e}); check the path (relative paths are taken \
                 from the current directory)"
            ))),
        }
    }

    /// Writes `bytes` to `path` (inside an allowed folder) through a temporary file in the same
    /// folder, replacing any file there; returns the absolute path written.
    pub fn write(&self, path: &str, bytes: &[u8]) -> Result<PathBuf> {
        self.write_with(path, |out| {
            out.write_all(bytes).map_err(|e| write_failed(&e))
        })
    }

    /// Like [`AllowedFolders::write`], with the bytes written by `fill`. Nothing is left under
    /// `path` (nor a temporary file) when `fill` or the write fails.
    pub fn write_with(
        &self,
        path: &str,
        fill: impl FnOnce(&mut std::fs::File) -> Result<()>,
    ) -> Result<PathBuf> {
        let target = self.check(path)?;
        let cannot = |why: String| {
            Error::invalid_argument(format!(
                "cannot write {path}: {why}; give a file in a folder that exists and can be \
                 written"
            ))
        };
        // A failure of the disk itself says what to do about it (a full disk, a read-only one).
        let failed = |e: std::io::Error| {
            Error::invalid_argument(format!(
                "cannot write {path}: {}",
                write_failed(&e).message()
            ))
        };
        let (Some(folder), Some(name)) = (target.parent(), target.file_name()) else {
            return Err(cannot("it names no file".into()));
        };
        match std::fs::metadata(folder) {
            Ok(meta) if meta.is_dir() => {}
            Ok(_) => return Err(cannot(format!("{} is not a folder", folder.display()))),
            Err(_) => {
                return Err(cannot(format!(
                    "the folder {} does not exist",
                    folder.display()
                )))
            }
        }
        if target.is_dir() {
            return Err(cannot("it is a folder".into()));
        }
        let mut temp = tempfile::Builder::new()
            .prefix(&format!(".{}.", name.to_string_lossy()))
            .suffix(".part")
            .tempfile_in(folder)
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::StorageFull
                | std::io::ErrorKind::QuotaExceeded
                | std::io::ErrorKind::ReadOnlyFilesystem => failed(e),
                _ => cannot(format!(
                    "the folder {} cannot be written ({e})",
                    folder.display()
                )),
            })?;
        fill(temp.as_file_mut()).map_err(|e| {
            Error::invalid_argument(format!("cannot write {path}: {}", e.message()))
        })?;
        temp.as_file().sync_all().map_err(failed)?;
        // A temporary file is made readable by its owner alone; what is saved is an ordinary
        // file.
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let readable = std::fs::Permissions::from_mode(0o644);
            std::fs::set_permissions(temp.path(), readable).map_err(failed)?;
        }
        // On failure the temporary file is removed when `PersistError` drops it.
        temp.persist(&target).map_err(|e| failed(e.error))?;
        Ok(target)
    }

    /// The folders, for messages.
    fn list(&self) -> String {
        if self.folders.is_empty() {
            return "none is allowed".into();
        }
        self.folders
            .iter()
            .map(|f| f.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The error of a write that failed with `e`, with what to do about it: a full disk and a
/// read-only one need other remedies than a wrong path. For the writers of files (captures,
/// screenshots, snapshots) and [`AllowedFolders::write_with`].
pub fn write_failed(e: &std::io::Error) -> Error {
    use std::io::ErrorKind;
    let advice = match e.kind() {
        ErrorKind::StorageFull | ErrorKind::QuotaExceeded => {
            "the disk is full: free some space, or give a path on another disk"
        }
        ErrorKind::FileTooLarge => {
            "the file is larger than this system lets a file be (a file size limit): raise \
             the limit, or give a path where it does not apply"
        }
        ErrorKind::ReadOnlyFilesystem => "the disk is read-only: give a path on a writable disk",
        ErrorKind::PermissionDenied => "give a file in a folder this process may write",
        _ => "give a file in a folder that exists and can be written",
    };
    Error::invalid_argument(format!("{e}; {advice}"))
}

/// The absolute path the system would open for `path`: canonical if it exists; otherwise the
/// canonical path of its nearest existing ancestor with the rest joined on (`..` in the rest
/// taken lexically, which is where it would lead once the missing folders were made).
fn resolve(path: &Path) -> Result<PathBuf> {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        let cwd = std::env::current_dir().map_err(|e| {
            Error::invalid_argument(format!(
                "cannot resolve the relative path {}: the current directory is unknown ({e})",
                path.display()
            ))
        })?;
        cwd.join(path)
    };
    if let Ok(canonical) = std::fs::canonicalize(&absolute) {
        return Ok(canonical);
    }
    for ancestor in absolute.ancestors().skip(1) {
        let Ok(mut resolved) = std::fs::canonicalize(ancestor) else {
            continue;
        };
        let rest = absolute.strip_prefix(ancestor).unwrap_or(Path::new(""));
        for part in rest.components() {
            match part {
                Component::ParentDir => {
                    resolved.pop();
                }
                Component::Normal(name) => resolved.push(name),
                Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
            }
        }
        return Ok(resolved);
    }
    // Not even the root resolves: nothing can be inside an allowed folder.
    Ok(absolute)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A temporary folder, canonical (the system's temporary folder may itself be a link).
    fn folder() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let canonical = std::fs::canonicalize(dir.path()).expect("canonical");
        (dir, canonical)
    }

    fn only(folder: &Path) -> AllowedFolders {
        let mut allowed = AllowedFolders::none();
        allowed.add(folder).expect("allow");
        allowed
    }

    fn text(p: &Path) -> String {
        p.to_string_lossy().into_owned()
    }

    #[test]
    fn a_file_inside_is_allowed_and_resolved() {
        let (_d, root) = folder();
        std::fs::write(root.join("a.txt"), "a").expect("write");
        let allowed = only(&root);
        assert_eq!(
            allowed.check(&text(&root.join("a.txt"))).expect("inside"),
            root.join("a.txt")
        );
        assert_eq!(
            allowed
                .check_read(&text(&root.join("a.txt")))
                .expect("readable"),
            root.join("a.txt")
        );
    }

    #[test]
    fn a_file_outside_is_refused_naming_the_path_folders_and_flag() {
        let (_d, root) = folder();
        let (_o, other) = folder();
        let outside = other.join("secret.txt");
        std::fs::write(&outside, "s").expect("write");
        let err = only(&root).check(&text(&outside)).expect_err("outside");
        assert_eq!(err.code(), crate::ErrorCode::InvalidArgument);
        let msg = err.message();
        assert!(msg.contains(&text(&outside)), "{msg}");
        assert!(msg.contains(&text(&root)), "{msg}");
        assert!(msg.contains("--allow-dir"), "{msg}");
    }

    #[test]
    fn a_folder_with_a_similar_name_is_not_inside() {
        let (_d, root) = folder();
        let sibling = PathBuf::from(format!("{}x", root.display()));
        std::fs::create_dir(&sibling).expect("mkdir");
        let result = only(&root).check(&text(&sibling.join("f")));
        std::fs::remove_dir_all(&sibling).expect("clean up");
        assert!(result.is_err());
    }

    #[test]
    fn dot_dot_cannot_escape() {
        let (_d, root) = folder();
        std::fs::create_dir(root.join("sub")).expect("mkdir");
        let allowed = only(&root.join("sub"));
        let escape = format!("{}/sub/../escaped.txt", root.display());
        let msg = allowed.check(&escape).expect_err("escapes").to_string();
        assert!(msg.contains(&text(&root.join("escaped.txt"))), "{msg}");
        // Through a folder that does not exist, too.
        let escape = format!("{}/sub/missing/../../escaped.txt", root.display());
        assert!(allowed.check(&escape).is_err());
        // Up and down again stays inside.
        let inside = format!("{}/sub/../sub/ok.txt", root.display());
        assert_eq!(
            allowed.check(&inside).expect("inside"),
            root.join("sub/ok.txt")
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_link_inside_pointing_outside_is_refused() {
        let (_d, root) = folder();
        let (_o, other) = folder();
        std::fs::write(other.join("secret.txt"), "s").expect("write");
        std::os::unix::fs::symlink(other.join("secret.txt"), root.join("link.txt")).expect("link");
        std::os::unix::fs::symlink(&other, root.join("dir")).expect("link");
        let allowed = only(&root);
        assert!(allowed.check(&text(&root.join("link.txt"))).is_err());
        assert!(allowed.check(&text(&root.join("dir/secret.txt"))).is_err());
        // A new file through a linked folder lands outside as well.
        assert!(allowed.check(&text(&root.join("dir/new.txt"))).is_err());
        assert!(allowed
            .write(&text(&root.join("dir/new.txt")), b"x")
            .is_err());
        assert!(!other.join("new.txt").exists());
    }

    #[test]
    fn a_file_not_yet_there_in_an_allowed_folder_is_allowed() {
        let (_d, root) = folder();
        let allowed = only(&root);
        let new = root.join("new.png");
        assert_eq!(allowed.check(&text(&new)).expect("inside"), new);
        let msg = allowed
            .check_read(&text(&new))
            .expect_err("missing")
            .to_string();
        assert!(msg.contains("cannot be read"), "{msg}");
    }

    #[test]
    fn relative_paths_are_taken_from_the_current_directory() {
        let cwd = std::fs::canonicalize(std::env::current_dir().expect("cwd")).expect("canonical");
        let allowed = only(&cwd);
        assert_eq!(
            allowed.check("some/new/file.txt").expect("inside"),
            cwd.join("some/new/file.txt")
        );
        assert!(allowed.check("../outside-of-the-crate.txt").is_err() || cwd.parent().is_none());
        let (_d, root) = folder();
        assert!(only(&root).check("relative.txt").is_err());
    }

    #[test]
    fn the_defaults_are_the_current_and_temporary_folders() {
        let allowed = AllowedFolders::default();
        let cwd = std::fs::canonicalize(std::env::current_dir().expect("cwd")).expect("canonical");
        let tmp = std::fs::canonicalize(std::env::temp_dir()).expect("canonical");
        assert!(allowed.folders().contains(&cwd));
        assert!(allowed.folders().contains(&tmp));
        assert!(AllowedFolders::with_defaults(&["/no/such/folder/anywhere"]).is_err());
    }

    #[test]
    fn a_write_replaces_the_file_and_leaves_no_temporary_file() {
        let (_d, root) = folder();
        let allowed = only(&root);
        let file = root.join("out.txt");
        std::fs::write(&file, "old").expect("write");
        let written = allowed.write(&text(&file), b"new").expect("written");
        assert_eq!(written, file);
        assert_eq!(std::fs::read(&file).expect("read"), b"new");
        let names: Vec<_> = std::fs::read_dir(&root).expect("list").collect();
        assert_eq!(names.len(), 1);
    }

    #[test]
    fn a_failed_write_leaves_neither_the_file_nor_a_temporary_one() {
        let (_d, root) = folder();
        let allowed = only(&root);
        let file = root.join("out.txt");
        let err = allowed
            .write_with(&text(&file), |out| {
                out.write_all(b"half")
                    .map_err(|e| Error::invalid_argument(e.to_string()))?;
                Err(Error::invalid_argument("the disk is full"))
            })
            .expect_err("fails");
        assert!(err.message().contains("the disk is full"), "{err}");
        assert_eq!(std::fs::read_dir(&root).expect("list").count(), 0);
    }

    #[test]
    fn a_missing_folder_is_a_clear_error() {
        let (_d, root) = folder();
        let msg = only(&root)
            .write(&text(&root.join("nope/out.txt")), b"x")
            .expect_err("missing")
            .to_string();
        assert!(msg.contains("does not exist"), "{msg}");
    }

    #[cfg(unix)]
    #[test]
    fn a_read_only_folder_is_a_clear_error() {
        use std::os::unix::fs::PermissionsExt as _;
        let (_d, root) = folder();
        let locked = root.join("locked");
        std::fs::create_dir(&locked).expect("mkdir");
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o555)).expect("chmod");
        let result = only(&root).write(&text(&locked.join("out.txt")), b"x");
        // Root may write anywhere; the rule is then only that the file is whole.
        let root_user = std::fs::write(locked.join("probe"), "p").is_ok();
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        if !root_user {
            let msg = result.expect_err("read-only").to_string();
            assert!(msg.contains("cannot be written"), "{msg}");
            assert!(!locked.join("out.txt").exists());
        }
    }
}
