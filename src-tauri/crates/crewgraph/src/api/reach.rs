//! Which crews an [`Api`] may reach, and how its answers name them.
//!
//! The window and the CLI reach any crew file on the machine and name crews by
//! their paths ([`Reach::Anywhere`]). A server reaches only the crews of its crews
//! folder and names them relative to it (`exam.yaml`, `go-quiz`):
//! [`Reach::CrewsFolder`]. There [`CrewsRoot::resolve`] is the one door from such a
//! name to a file: it refuses absolute paths, `..`, `.`, backslashes and NUL bytes
//! outright (after percent-decoding, so `%2e%2e` is `..`), then canonicalizes the
//! path and checks it is still inside the crews folder, so a symbolic link cannot
//! lead out of it either. Answers name crews the same way ([`CrewsRoot::name`]).
//!
//! Every operation goes through [`Api::crew_path`] and [`Api::crew_name`], so one
//! operation behaves alike in the window and over HTTP.

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use super::{Api, ApiError, ApiErrorCode};

/// Which crews an API reaches.
#[derive(Clone, Debug, Default)]
pub enum Reach {
    /// Any crew file or folder, named by its path (the window, the CLI).
    #[default]
    Anywhere,
    /// Only the crews of one folder, named relative to it (a server).
    CrewsFolder(CrewsRoot),
}

impl Api {
    /// This API, reaching only the crews of its crews folder and naming them relative
    /// to it (what `crewgraph serve` hands out). Fails when the folder is missing.
    pub fn within_crews_folder(mut self) -> std::io::Result<Self> {
        self.reach = Arc::new(Reach::CrewsFolder(CrewsRoot::new(&self.crews_dir)?));
        Ok(self)
    }

    /// The crews this API reaches.
    pub fn reach(&self) -> &Reach {
        &self.reach
    }

    /// The crew file or folder `name` stands for.
    pub fn crew_path(&self, name: &str) -> Result<PathBuf, ApiError> {
        match &*self.reach {
            Reach::Anywhere => Ok(PathBuf::from(name)),
            Reach::CrewsFolder(root) => root.resolve(name),
        }
    }

    /// Where to save a crew named `name` (it may not exist yet).
    pub fn new_crew_path(&self, name: &str) -> Result<PathBuf, ApiError> {
        match &*self.reach {
            Reach::Anywhere => Ok(PathBuf::from(name)),
            Reach::CrewsFolder(root) => root.resolve_target(name),
        }
    }

    /// True when this API reaches `path` (absolute, as a run stores it).
    pub fn reaches(&self, path: &Path) -> bool {
        match &*self.reach {
            Reach::Anywhere => true,
            Reach::CrewsFolder(root) => root.contains(path),
        }
    }

    /// How answers name the crew file or folder at `path`.
    pub fn crew_name(&self, path: &str) -> String {
        match &*self.reach {
            Reach::Anywhere => path.to_owned(),
            Reach::CrewsFolder(root) => root.name(path),
        }
    }

    /// `message` with `path` said as `name`, and the crews folder said in words (a
    /// server does not tell where its files are).
    pub fn in_names(&self, message: &str, path: &Path, name: &str) -> String {
        match &*self.reach {
            Reach::Anywhere => message.to_owned(),
            Reach::CrewsFolder(root) => {
                message.replace(&path.display().to_string(), name).replace(&root.path().display().to_string(), "the crews folder")
            }
        }
    }
}

/// A crews folder, canonical: the one door from a crew's name to its file.
#[derive(Clone, Debug)]
pub struct CrewsRoot {
    root: PathBuf,
}

impl CrewsRoot {
    /// The crews folder `dir`, which must exist.
    pub fn new(dir: &Path) -> std::io::Result<Self> {
        let root = dir.canonicalize()?;
        if !root.is_dir() {
            return Err(std::io::Error::new(std::io::ErrorKind::NotADirectory, format!("'{}' is not a folder", dir.display())));
        }
        Ok(Self { root })
    }

    /// The folder itself.
    pub fn path(&self) -> &Path {
        &self.root
    }

    /// The file or folder a crew name stands for: `invalid_input` for a name that is
    /// not a plain relative path or leads outside the folder, `not_found` for one
    /// that names nothing.
    pub fn resolve(&self, name: &str) -> Result<PathBuf, ApiError> {
        let joined = self.root.join(plain_relative(name)?);
        let real = match joined.canonicalize() {
            Ok(real) => real,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                return Err(ApiError::new(ApiErrorCode::NotFound, format!("there is no crew '{name}' in the crews folder")))
            }
            Err(error) => return Err(refusal(name, &format!("it cannot be opened ({error})"))),
        };
        if !real.starts_with(&self.root) {
            return Err(refusal(name, "it leads out of the crews folder (a symbolic link)"));
        }
        Ok(real)
    }

    /// Where to save a crew named `name`: the crew when it exists (as [`Self::resolve`]),
    /// else a new file or folder whose parent folder exists inside the crews folder.
    pub fn resolve_target(&self, name: &str) -> Result<PathBuf, ApiError> {
        let relative = plain_relative(name)?;
        if self.root.join(relative).symlink_metadata().is_ok() {
            return self.resolve(name);
        }
        let (Some(parent), Some(file)) = (relative.parent(), relative.file_name()) else {
            return Err(refusal(name, "it names no file"));
        };
        let parent = if parent.as_os_str().is_empty() {
            self.root.clone()
        } else {
            self.resolve(&parent.display().to_string()).map_err(|_| {
                ApiError::new(
                    ApiErrorCode::InvalidInput,
                    format!("'{name}' cannot be saved: its folder '{}' is not in the crews folder", parent.display()),
                )
            })?
        };
        Ok(parent.join(file))
    }

    /// True when `path` (absolute, as a run stores it) is inside the crews folder.
    pub fn contains(&self, path: &Path) -> bool {
        path.canonicalize().is_ok_and(|real| real.starts_with(&self.root))
    }

    /// How answers name `path`: relative to the crews folder when inside it.
    pub fn name(&self, path: &str) -> String {
        let path = Path::new(path);
        if let Ok(relative) = path.strip_prefix(&self.root) {
            return relative.display().to_string();
        }
        match path.canonicalize().ok().and_then(|real| real.strip_prefix(&self.root).ok().map(Path::to_path_buf)) {
            Some(relative) => relative.display().to_string(),
            None => path.display().to_string(),
        }
    }
}

/// `name` as a relative path of plain components, or why it is not one.
fn plain_relative(name: &str) -> Result<&Path, ApiError> {
    if name.is_empty() {
        return Err(refusal(name, "the name is empty"));
    }
    if name.contains('\0') || name.contains('\\') {
        return Err(refusal(name, "a crew name holds no NUL bytes or backslashes"));
    }
    let relative = Path::new(name);
    for component in relative.components() {
        match component {
            Component::Normal(_) => {}
            Component::ParentDir => return Err(refusal(name, "'..' would lead out of the crews folder")),
            Component::CurDir => return Err(refusal(name, "'.' is not part of a crew name")),
            Component::RootDir | Component::Prefix(_) => {
                return Err(refusal(name, "absolute paths are not taken; name the crew relative to the crews folder"))
            }
        }
    }
    Ok(relative)
}

fn refusal(name: &str, why: &str) -> ApiError {
    ApiError::new(ApiErrorCode::InvalidInput, format!("'{name}' is not a crew of this server: {why}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root() -> (tempfile::TempDir, CrewsRoot) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("crews")).unwrap();
        std::fs::write(dir.path().join("crews/a.yaml"), "name: A").unwrap();
        std::fs::write(dir.path().join("secret.yaml"), "name: secret").unwrap();
        let root = CrewsRoot::new(&dir.path().join("crews")).unwrap();
        (dir, root)
    }

    #[test]
    fn a_crew_of_the_folder_resolves_and_is_named_relative_to_it() {
        let (_dir, root) = root();
        let path = root.resolve("a.yaml").unwrap();
        assert_eq!(root.name(&path.display().to_string()), "a.yaml");
    }

    #[test]
    fn names_that_would_leave_the_folder_are_refused_before_any_file_is_touched() {
        let (dir, root) = root();
        let outside = dir.path().join("secret.yaml").display().to_string();
        for name in ["../secret.yaml", "a/../../secret.yaml", outside.as_str(), "/etc/passwd", "./a.yaml", "..\\secret.yaml", "a\0"] {
            let error = root.resolve(name).unwrap_err();
            assert_eq!(error.code, ApiErrorCode::InvalidInput, "{name}: {error:?}");
        }
    }

    #[test]
    fn a_symbolic_link_out_of_the_folder_is_refused() {
        let (dir, root) = root();
        std::os::unix::fs::symlink(dir.path().join("secret.yaml"), dir.path().join("crews/link.yaml")).unwrap();
        let error = root.resolve("link.yaml").unwrap_err();
        assert_eq!(error.code, ApiErrorCode::InvalidInput);
        assert!(error.message.contains("symbolic link"), "{}", error.message);
    }

    #[test]
    fn a_new_crew_is_saved_inside_the_folder_only() {
        let (dir, root) = root();
        assert_eq!(root.resolve_target("new.yaml").unwrap(), root.path().join("new.yaml"));
        assert_eq!(root.resolve_target("a.yaml").unwrap(), root.path().join("a.yaml"));
        for name in ["../new.yaml", "/tmp/new.yaml", "missing/new.yaml", ""] {
            assert_eq!(root.resolve_target(name).unwrap_err().code, ApiErrorCode::InvalidInput, "{name}");
        }
        std::os::unix::fs::symlink(dir.path(), dir.path().join("crews/out")).unwrap();
        assert_eq!(root.resolve_target("out/new.yaml").unwrap_err().code, ApiErrorCode::InvalidInput);
    }

    #[test]
    fn a_missing_crew_is_not_found() {
        let (_dir, root) = root();
        assert_eq!(root.resolve("nope.yaml").unwrap_err().code, ApiErrorCode::NotFound);
    }
}
