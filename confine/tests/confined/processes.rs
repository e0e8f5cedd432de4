//! What no process of the confined tree can lift: children, background processes, new
//! sessions, the launcher run again with wider grants (E-7); no TCP without a grant (E-6); no
//! signal out of the tree; the refusals (E-8, E-9).

use std::io::Read;
use std::net::TcpListener;
use std::time::{Duration, Instant};

use agentwarden_domain::confine::Mode;

use crate::support::{AGENT_UID, LAUNCHER, Tree, said, text};

/// Waits until `path` exists (a background process says it is done), at most ten seconds.
fn wait_for(path: &std::path::Path) {
    let start = Instant::now();
    while !path.exists() {
        assert!(start.elapsed() < Duration::from_secs(10), "{} never appeared", path.display());
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(100));
}

#[test]
fn a_background_or_new_session_child_stays_confined_after_the_launcher_exits() {
    let tree = Tree::new();
    let confinement = tree.confinement(&["Edit"], &[]);
    // (how the agent detaches, the command that starts it)
    let ways: [(&str, &str); 4] = [
        ("background", "( {} ) >/dev/null 2>&1 &"),
        ("setsid", "setsid sh -c '{}' >/dev/null 2>&1 &"),
        ("nohup", "nohup sh -c '{}' >/dev/null 2>&1 &"),
        ("double fork", "sh -c '( {} ) &' >/dev/null 2>&1 &"),
    ];
    for (n, (how, start)) in ways.iter().enumerate() {
        let escaped = tree.out().join(format!("escaped{n}"));
        let done = tree.ws().join(format!("done{n}"));
        let later = format!("sleep 1; echo x > {}; echo $? > {}", text(&escaped), text(&done));
        let output = tree.run(&confinement, &start.replace("{}", &later));
        assert!(output.status.success(), "{how}: {}", said(&output));
        // The launcher is gone and its child not yet done: the write comes after the launcher.
        assert!(!done.exists(), "{how}: the launcher waited for its child");
        wait_for(&done);
        assert!(!escaped.exists(), "{how}: a detached child wrote outside the grants");
        assert_ne!(std::fs::read_to_string(&done).unwrap().trim(), "0", "{how}: the write did not fail");
    }
}

#[test]
fn the_launcher_run_again_inside_with_wider_grants_stays_inside() {
    let tree = Tree::new();
    let outer = tree.confinement(&["Edit(/src/**)"], &[]);
    std::fs::create_dir(tree.ws().join("src")).unwrap();
    let wide = tree.confinement_in(&["Edit(//**)", "WebFetch"], &[], Mode::Recorded);
    let escaped = tree.out().join("escaped");
    let inner = format!("{LAUNCHER} '{wide}' 'echo x > {}'", text(&escaped));
    let output = tree.run(&outer, &inner);
    assert!(!escaped.exists(), "the inner launcher widened the grants: {}", said(&output));
    // It could not confine (its user namespace's maps are not its to write), and said so: in
    // the `recorded` mode it ran the command, inside the outer confinement still (E-9).
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("warden-confine: running UNCONFINED (mode recorded)"), "{}", said(&output));
    // Asked to confine required, the inner launcher refuses rather than run (E-9).
    let required = tree.confinement(&["Edit(//**)"], &[]);
    let inner = format!("{LAUNCHER} '{required}' 'echo ran'");
    let output = tree.run(&outer, &inner);
    assert!(!String::from_utf8_lossy(&output.stdout).contains("ran"), "{}", said(&output));
    // A new user namespace, where the agent is root, grants nothing more either.
    let output = tree.run(&outer, &format!("unshare -Ur sh -c 'echo x > {}'", text(&escaped)));
    assert!(!escaped.exists(), "a user namespace widened the grants: {}", said(&output));
}

/// A listener on 127.0.0.1 that counts the connections it accepts within the test.
fn listener() -> (u16, std::sync::mpsc::Receiver<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut buf = [0_u8; 1];
            let _ = (&stream).read(&mut buf);
            let _ = tx.send(());
        }
    });
    (port, rx)
}

fn connect(port: u16) -> String {
    format!(
        "perl -MIO::Socket::INET -e 'IO::Socket::INET->new(PeerAddr => \"127.0.0.1:{port}\", Timeout => 3) \
         or do {{ print \"refused: $!\"; exit 1 }}; print \"connected\"'"
    )
}

#[test]
fn no_tcp_connect_without_a_grant() {
    let tree = Tree::new();
    let (port, accepted) = listener();
    // Unconfined, the same command connects: the test can tell.
    let output = std::process::Command::new("sh").arg("-c").arg(connect(port)).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&output.stdout), "connected", "{}", said(&output));
    accepted.recv_timeout(Duration::from_secs(5)).unwrap();
    // (rules, why)
    let table: [(&[&str], &str); 3] = [
        (&["Edit"], "no network granted: no interface, no TCP (E-6)"),
        (&["WebFetch(domain:example.org)"], "a host granted: TCP to the web ports only, not this port"),
        (&["WebFetch"], "any host granted: still the web ports only"),
    ];
    // As root (in its user namespace) and as a second user.
    for uid in [None, Some(AGENT_UID)] {
        for (rules, why) in table {
            let confinement = tree.confinement(rules, &[]);
            let output = match uid {
                Some(uid) => tree.run_as(uid, &confinement, &connect(port)),
                None => tree.run(&confinement, &connect(port)),
            };
            assert!(!output.status.success(), "{uid:?} {rules:?}: {why}: {}", said(&output));
            let got = accepted.recv_timeout(Duration::from_millis(300));
            assert!(got.is_err(), "{uid:?} {rules:?}: the listener accepted");
        }
    }
    // Nor may it listen: a bind is TCP too.
    let serve = "perl -MIO::Socket::INET -e 'IO::Socket::INET->new(LocalAddr => \"127.0.0.1:0\", Listen => 1) \
                 or do { print \"refused\"; exit 1 }; print \"listening\"'";
    let output = tree.run(&tree.confinement(&["WebFetch"], &[]), serve);
    assert_eq!(String::from_utf8_lossy(&output.stdout), "refused", "{}", said(&output));
}

#[test]
fn no_signal_reaches_a_process_outside_the_tree() {
    let tree = Tree::new();
    let mut outside = std::process::Command::new("sleep").arg("30").spawn().unwrap();
    let output = tree.run(&tree.confinement(&["Edit"], &[]), &format!("kill -9 {}", outside.id()));
    let alive = outside.try_wait().unwrap().is_none();
    let _ = outside.kill();
    let _ = outside.wait();
    assert!(alive, "a confined process killed one outside its tree: {}", said(&output));
    // Inside its own tree it may.
    let output = tree.run(&tree.confinement(&["Edit"], &[]), "sleep 30 & kill $! && echo killed");
    assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), "killed", "{}", said(&output));
}

#[test]
fn the_command_is_one_argument_run_by_the_shell_byte_for_byte() {
    let tree = Tree::new();
    let command = "printf '%s|' \"a'b\" 'c\"d' '$HOME' \"$(echo sub)\"; printf '\\n'";
    let output = tree.run(&tree.confinement(&["Edit"], &[]), command);
    let unconfined = std::process::Command::new("sh").arg("-c").arg(command).output().unwrap();
    assert_eq!(output.stdout, unconfined.stdout, "{}", said(&output));
    assert_eq!(String::from_utf8_lossy(&output.stdout), "a'b|c\"d|$HOME|sub|\n");
}

#[test]
fn an_argument_it_cannot_read_is_refused_and_nothing_runs() {
    let tree = Tree::new();
    let good = tree.confinement(&["Edit"], &[]);
    // (arguments after the launcher's name, why)
    let table: [(Vec<String>, &str); 5] = [
        (vec![], "no arguments"),
        (vec![good.clone()], "no command"),
        (vec![good.clone(), "echo ran".into(), "extra".into()], "a third argument"),
        (vec!["v1 required w=/ r=*".into(), "echo ran".into()], "no network word"),
        (vec![good.replace("v1", "v9"), "echo ran".into()], "another version"),
    ];
    for (args, why) in table {
        let output =
            std::process::Command::new(LAUNCHER).args(&args).current_dir(tree.ws()).output().unwrap();
        assert_eq!(output.status.code(), Some(agentwarden_confine::REFUSED), "{why}: {}", said(&output));
        assert!(output.stdout.is_empty(), "{why}: the command ran");
        assert_eq!(String::from_utf8_lossy(&output.stderr).lines().count(), 1, "{why}: one line");
    }
}

#[test]
fn no_command_is_typed_into_the_users_terminal() {
    let tree = Tree::new();
    // `TIOCSTI` pushes a character into the terminal's input: the user's own shell would read
    // it after the harness exits. `/dev/tty` is writable (the baseline), its ioctls are not.
    let inject = tree.file(
        "inject.pl",
        "open(T, '+<', '/dev/tty') or die \"open: $!\\n\"; my $c = 'x'; \
         ioctl(T, 0x5412, $c) or die \"ioctl: $!\\n\"; print \"injected\\n\";",
    );
    let confinement = tree.confinement(&["Edit"], &[]);
    let inside = format!("{LAUNCHER} '{confinement}' 'perl {}'", text(&inject));
    // `script` gives the launcher a terminal of its own, as a harness run by a human has.
    let output = std::process::Command::new("script").args(["-qec", &inside, "/dev/null"]).output().unwrap();
    let said_ = String::from_utf8_lossy(&output.stdout);
    assert!(said_.contains("ioctl: Permission denied"), "{}", said(&output));
    assert!(!said_.contains("injected"), "{}", said(&output));
}

#[test]
fn the_launch_line_hands_the_launcher_the_command_byte_for_byte() {
    let tree = Tree::new();
    let policy =
        agentwarden_domain::confine::Confinement { write: vec![text(&tree.ws())], ..Default::default() };
    let escaped = tree.out().join("pwned");
    // Commands that try to end the quoting and run something outside the launcher.
    let commands = [
        "echo plain".to_owned(),
        format!("echo '; touch {}; '", text(&escaped)),
        format!("echo \"'\"; touch {} #", text(&escaped)),
        format!("echo '\\''; touch {}", text(&escaped)),
        "printf '%s\\n' \"$HOME\" `echo tick` $(echo sub)".to_owned(),
        "printf 'a\\nb'\necho second line".to_owned(),
        "echo 'unclosed".to_owned(),
        "echo é ünïcode ✓".to_owned(),
    ];
    for command in commands {
        let line = policy.launch_line(Mode::Required, LAUNCHER, &command);
        let wrapped =
            std::process::Command::new("sh").arg("-c").arg(&line).current_dir(tree.ws()).output().unwrap();
        // Only the launcher ran a command: the confined one, which cannot write outside.
        assert!(!escaped.exists(), "{command:?} ran outside the launcher: {}", said(&wrapped));
        // And it ran exactly the command: it prints what the bare command prints.
        let bare =
            std::process::Command::new("sh").arg("-c").arg(&command).current_dir(tree.ws()).output().unwrap();
        let _ = std::fs::remove_file(&escaped);
        assert_eq!(wrapped.stdout, bare.stdout, "{command:?}: {}", said(&wrapped));
    }
    let line = policy.launch_line(Mode::Required, LAUNCHER, &format!("echo x > {}", text(&escaped)));
    let output = std::process::Command::new("sh").arg("-c").arg(&line).output().unwrap();
    assert!(!escaped.exists(), "{}", said(&output));
}

/// python3 sending over `protocol` (`mptcp` or `udp`) to 127.0.0.1:`port`: prints `sent` or
/// `refused` and the error.
fn other_protocol(protocol: &str, port: u16) -> String {
    let open = match protocol {
        "mptcp" => {
            "s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 262); s.settimeout(3); \
                    s.connect(('127.0.0.1', PORT)); s.send(b'x')"
        }
        _ => "s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.sendto(b'x', ('127.0.0.1', PORT))",
    };
    format!(
        "python3 -c \"import socket\ntry:\n    {}\n    print('sent')\nexcept OSError as e:\n    print('refused', e)\"",
        open.replace("PORT", &port.to_string())
    )
}

#[test]
fn no_other_ip_protocol_reaches_a_port_the_grants_do_not_open() {
    let tree = Tree::new();
    let (port, accepted) = listener();
    let udp = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    udp.set_read_timeout(Some(Duration::from_millis(300))).unwrap();
    let udp_port = udp.local_addr().unwrap().port();
    // Unconfined, both reach their listener: the test can tell.
    let output =
        std::process::Command::new("sh").arg("-c").arg(other_protocol("mptcp", port)).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), "sent", "{}", said(&output));
    accepted.recv_timeout(Duration::from_secs(5)).unwrap();
    let output =
        std::process::Command::new("sh").arg("-c").arg(other_protocol("udp", udp_port)).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), "sent", "{}", said(&output));
    assert!(udp.recv(&mut [0_u8; 8]).is_ok(), "the datagram did not arrive unconfined");
    // MPTCP is TCP to the listener but not to Landlock's port rule: with or without a web
    // grant it reaches no port (E-33). UDP without a network grant reaches nothing (E-33).
    for rules in [&["Edit"][..], &["Edit", "WebFetch"][..]] {
        let output = tree.run(&tree.confinement(rules, &[]), &other_protocol("mptcp", port));
        assert!(
            String::from_utf8_lossy(&output.stdout).starts_with("refused"),
            "{rules:?}: {}",
            said(&output)
        );
        assert!(accepted.recv_timeout(Duration::from_millis(300)).is_err(), "{rules:?}: MPTCP accepted");
    }
    let output = tree.run(&tree.confinement(&["Edit"], &[]), &other_protocol("udp", udp_port));
    assert!(
        udp.recv(&mut [0_u8; 8]).is_err(),
        "a datagram arrived with no network granted: {}",
        said(&output)
    );
}

/// Attaches to `PID` with ptrace, opens its memory, and opens a file by handle (the container
/// escape that needs `CAP_DAC_READ_SEARCH`): one line each, `ok` or the error.
const PROBE: &str = r#"
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
pid = int(sys.argv[1])
def said(what, r):
    print(what, "ok" if r >= 0 else os.strerror(ctypes.get_errno()))
said("ptrace", libc.ptrace(16, pid, 0, 0))
try:
    open(f"/proc/{pid}/mem", "rb"); print("mem ok")
except OSError as e:
    print("mem", e.strerror)
class Handle(ctypes.Structure):
    _fields_ = [("bytes", ctypes.c_uint), ("type", ctypes.c_int), ("handle", ctypes.c_ubyte * 128)]
h = Handle(); h.bytes = 128; mount = ctypes.c_int()
libc.name_to_handle_at(-100, b"/etc/hostname", ctypes.byref(h), ctypes.byref(mount), 0)
said("open_by_handle_at", libc.open_by_handle_at(os.open("/", os.O_RDONLY), ctypes.byref(h), os.O_RDWR))
"#;

#[test]
fn no_process_outside_is_traced_and_no_file_is_opened_by_handle() {
    let tree = Tree::new();
    let probe = tree.file("probe.py", PROBE);
    let mut outside = std::process::Command::new("sleep").arg("30").spawn().unwrap();
    let command = format!("python3 {} {}", text(&probe), outside.id());
    let unconfined = std::process::Command::new("sh").arg("-c").arg(&command).output().unwrap();
    let confined = tree.run(&tree.confinement(&["Edit"], &[]), &command);
    let _ = outside.kill();
    let _ = outside.wait();
    // As root the same probe succeeds unconfined: the test can tell.
    if crate::support::is_root() {
        assert_eq!(String::from_utf8_lossy(&unconfined.stdout), "ptrace ok\nmem ok\nopen_by_handle_at ok\n");
    }
    let said_ = String::from_utf8_lossy(&confined.stdout);
    for line in said_.lines() {
        assert!(!line.ends_with(" ok"), "{line}: {}", said(&confined));
    }
    assert_eq!(said_.lines().count(), 3, "{}", said(&confined));
}
