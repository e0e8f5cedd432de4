//! The launcher opens what it confines by descriptor (E-29): a directory the agent swaps for a
//! symbolic link while the launcher starts neither carves a hole somewhere else nor grants a
//! write somewhere else. The agent is the launcher's parent and may race it; here a thread
//! exchanges a real directory and a link to a decoy outside as fast as the kernel lets it while
//! the launcher starts again and again.

use std::io::{Read, Seek, SeekFrom};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rustix::fs::{CWD, RenameFlags, renameat_with};

use crate::support::{Tree, said, text};

/// How many times the launcher starts under each race.
const STARTS: usize = 150;

/// Exchanges `a` and `b` (one a directory, one a link) until told to stop.
struct Swapper {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Swapper {
    fn start(a: PathBuf, b: PathBuf) -> Swapper {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let thread = std::thread::spawn(move || {
            while !flag.load(Ordering::Relaxed) {
                // A mount point cannot be renamed: the exchange fails while a launcher holds it.
                let _ = renameat_with(CWD, &a, CWD, &b, RenameFlags::EXCHANGE);
            }
        });
        Swapper { stop, thread: Some(thread) }
    }

    fn stop(mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            thread.join().unwrap();
        }
    }
}

/// What `file` holds now, read through the descriptor opened before the race: its name moves.
fn contents(file: &mut std::fs::File) -> String {
    let mut text = String::new();
    file.seek(SeekFrom::Start(0)).unwrap();
    file.read_to_string(&mut text).unwrap();
    text
}

#[test]
fn a_parent_of_a_hole_swapped_for_a_link_never_moves_the_hole() {
    let tree = Tree::new();
    let mut protected = std::fs::File::open(tree.file("a/b/c.txt", "deep")).unwrap();
    std::fs::create_dir_all(tree.out().join("decoy/b")).unwrap();
    std::fs::write(tree.out().join("decoy/b/c.txt"), "decoy").unwrap();
    std::os::unix::fs::symlink(tree.out().join("decoy"), tree.ws().join("alink")).unwrap();
    let confinement = tree.confinement(&["Edit"], &["a/b/c.txt"]);
    let (a, alink) = (tree.ws().join("a"), tree.ws().join("alink"));
    let swapper = Swapper::start(a.clone(), alink.clone());
    // The command tries the protected file by both names, and says whether any mount of this
    // namespace is outside the workspace: a hole carved through the link would be.
    let command = format!(
        "echo evil > a/b/c.txt; echo evil > alink/b/c.txt; grep -c ' {}' /proc/self/mountinfo",
        text(&tree.out())
    );
    let mut escaped = None;
    for start in 0..STARTS {
        let output = tree.run(&confinement, &command);
        let mounts_outside = String::from_utf8_lossy(&output.stdout).trim().to_owned();
        let kept = contents(&mut protected);
        if kept != "deep" || !matches!(mounts_outside.as_str(), "" | "0") {
            escaped = Some(format!(
                "start {start}: c.txt is {kept:?}, mounts outside {mounts_outside}: {}",
                said(&output)
            ));
            break;
        }
    }
    swapper.stop();
    assert_eq!(escaped, None, "the hole moved");
    assert_eq!(contents(&mut protected), "deep");
    assert_eq!(std::fs::read_to_string(tree.out().join("decoy/b/c.txt")).unwrap(), "decoy");
}

#[test]
fn a_write_grant_swapped_for_a_link_never_grants_where_it_points() {
    let tree = Tree::new();
    std::fs::create_dir(tree.ws().join("src")).unwrap();
    std::os::unix::fs::symlink(tree.out(), tree.ws().join("srclink")).unwrap();
    let confinement = tree.confinement(&["Edit(/src/**)"], &[]);
    let (src, srclink) = (tree.ws().join("src"), tree.ws().join("srclink"));
    let swapper = Swapper::start(src.clone(), srclink.clone());
    let mut escaped = None;
    for start in 0..STARTS {
        let name = format!("escaped{start}");
        let output = tree.run(
            &confinement,
            &format!(
                "echo x > {}; echo x > src/{name}; echo x > srclink/{name}",
                text(&tree.out().join(&name))
            ),
        );
        if tree.out().join(&name).exists() {
            escaped = Some(format!("start {start}: {}", said(&output)));
            break;
        }
    }
    swapper.stop();
    assert_eq!(escaped, None, "a write landed outside the grant");
}
