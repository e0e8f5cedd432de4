//! No Unix socket, and no raw one (E-32): a confined call cannot ask a process outside to act
//! for it through a socket file it may reach (a container daemon, an SSH agent, Warden's own
//! server), whatever its grants; `socketpair`, which reaches nothing outside, still works.

use std::io::Read;
use std::os::unix::net::UnixListener;
use std::time::Duration;

use crate::support::{AGENT_UID, Tree, said, text};

/// python3 connecting to the Unix socket at `path`: prints `connected` or the error.
fn connect(path: &str) -> String {
    format!(
        "python3 -c \"import socket\ntry:\n    s = socket.socket(socket.AF_UNIX); s.connect('{path}'); \
         print('connected')\nexcept OSError as e:\n    print('refused', e)\""
    )
}

/// A listener that reports each connection it accepts.
fn listen(path: &std::path::Path) -> std::sync::mpsc::Receiver<()> {
    let listener = UnixListener::bind(path).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut buf = [0_u8; 1];
            let _ = (&stream).read(&mut buf);
            let _ = tx.send(());
        }
    });
    rx
}

#[test]
fn a_confined_call_cannot_connect_to_a_unix_socket_an_unconfined_process_listens_on() {
    let tree = Tree::new();
    // In the workspace (writable) and outside it: Landlock has no right for a connect.
    let inside = tree.ws().join("daemon.sock");
    let outside = tree.out().join("daemon.sock");
    let accepted = [listen(&inside), listen(&outside)];
    if crate::support::is_root() {
        tree.give_to(AGENT_UID);
    }
    for (socket, accepted) in [&inside, &outside].iter().zip(&accepted) {
        // Unconfined, the same command connects: the test can tell.
        let output = std::process::Command::new("sh").arg("-c").arg(connect(&text(socket))).output().unwrap();
        assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), "connected", "{}", said(&output));
        accepted.recv_timeout(Duration::from_secs(5)).unwrap();
        // (rules, why)
        let table: [(&[&str], &str); 3] = [
            (&["Edit"], "no network granted"),
            (&["Edit", "WebFetch"], "a web grant: TCP to the web ports, still no Unix socket"),
            (&["Edit(//**)"], "every file writable: still no Unix socket"),
        ];
        for (rules, why) in table {
            let confinement = tree.confinement(rules, &[]);
            for uid in [None, Some(AGENT_UID)] {
                let output = match uid {
                    Some(uid) => tree.run_as(uid, &confinement, &connect(&text(socket))),
                    None => tree.run(&confinement, &connect(&text(socket))),
                };
                let said_ = String::from_utf8_lossy(&output.stdout);
                assert!(said_.starts_with("refused"), "{rules:?} {uid:?}: {why}: {}", said(&output));
                assert!(accepted.recv_timeout(Duration::from_millis(200)).is_err(), "{rules:?}: accepted");
            }
        }
    }
}

#[test]
fn what_reaches_nothing_outside_still_works_and_the_other_ways_to_a_socket_are_shut() {
    let tree = Tree::new();
    let confinement = tree.confinement(&["Edit"], &[]);
    // (command, expected output, why)
    let table: [(&str, &str, &str); 4] = [
        (
            "python3 -c \"import socket; a, b = socket.socketpair(); a.send(b'x'); print(b.recv(1).decode())\"",
            "x",
            "a socket pair reaches only itself: pipes between processes (libuv's, Python's) use it",
        ),
        (
            "perl -e 'use Socket; socket(my $s, PF_INET, SOCK_RAW, 1) ? print \"raw\" : print \"denied $!\"'",
            "denied Permission denied",
            "a raw socket",
        ),
        (
            // io_uring can make and connect a socket without the socket system call.
            "perl -e '$p = \"\\0\" x 120; $r = syscall(425, 8, $p); print $r < 0 ? \"denied $!\" : \"ring\"'",
            "denied Permission denied",
            "io_uring_setup",
        ),
        (
            // The x32 numbering of `socket` (41 | 0x40000000), which a filter by number would miss.
            "perl -e '$r = syscall(1073741865, 1, 1, 0); print $r < 0 ? \"denied $!\" : \"socket\"'",
            "denied Permission denied",
            "an x32 system call",
        ),
    ];
    for (command, expected, why) in table {
        let output = tree.run(&confinement, command);
        assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), expected, "{why}: {}", said(&output));
    }
}

/// The main session's network (E-35): `net=all` connects over TCP to any port and to a Unix
/// socket; the same call under a subagent's `net=any` reaches neither.
#[test]
fn the_main_session_s_whole_network_reaches_any_port_and_a_unix_socket() {
    let tree = Tree::new();
    let socket = tree.out().join("agent.sock");
    let accepted = listen(&socket);
    let tcp = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = tcp.local_addr().unwrap().port();
    std::thread::spawn(move || for _ in tcp.incoming() {});
    let tcp_connect = format!(
        "python3 -c \"import socket\ntry:\n    socket.create_connection(('127.0.0.1', {port}), 5); \
         print('connected')\nexcept OSError as e:\n    print('refused', e)\""
    );
    let ws = text(&tree.ws());
    // (network word, connects, why)
    for (net, connects, why) in
        [("net=all", true, "the main session's"), ("net=any", false, "a web grant: ports 80 and 443 alone")]
    {
        let confinement = format!("v1 required w={ws} r=* {net}");
        for command in [tcp_connect.clone(), connect(&text(&socket))] {
            let output = tree.run(&confinement, &command);
            let printed = String::from_utf8_lossy(&output.stdout);
            assert_eq!(
                printed.starts_with("connected"),
                connects,
                "{net}: {why}: {command}: {}",
                said(&output)
            );
        }
    }
    accepted.recv_timeout(Duration::from_secs(5)).unwrap();
    // Stacked beneath a subagent's confinement, the launcher run with `net=all` reaches nothing
    // the outer one refuses (E-7, E-35): in `recorded` mode it runs the command even where it
    // cannot confine it, and the outer confinement still holds.
    let inner = format!("v1 recorded w={ws} r=* net=all");
    let outer = tree.confinement(&["Edit"], &[]);
    let output = tree.run(
        &outer,
        &format!(
            "{} '{inner}' {}",
            crate::support::LAUNCHER,
            agentwarden_domain::confine::shell_word(&tcp_connect)
        ),
    );
    assert!(String::from_utf8_lossy(&output.stdout).starts_with("refused"), "{}", said(&output));
}
