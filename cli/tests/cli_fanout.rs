//! `warden fanout plan | run | merge` through the real binary.

#![expect(clippy::unwrap_used, reason = "test code: a failed unwrap is a failed test")]

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

fn warden(store: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warden")).arg("--store").arg(store).args(args).output().unwrap()
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or(Value::Null)
}

/// Echoes a completed result for whichever chunk it is given.
const AGENT: &str = r#"read input
i=$(printf '%s' "$input" | sed 's/.*"chunk_index":\([0-9]*\).*/\1/')
echo "{\"chunk_index\":$i,\"status\":\"completed\",\"elapsed_ms\":1,\"test_results\":{\"passed\":1,\"failed\":0,\"skipped\":0}}""#;

#[test]
fn plan_run_and_merge() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("audit");
    let items = dir.path().join("items.json");
    let mut list: Vec<Value> = (0..600).map(|i| Value::String(format!("tests/t{i:03}.sh"))).collect();
    list.extend([Value::from(7), Value::from("/etc/passwd"), Value::from("tests/t000.sh")]);
    std::fs::write(&items, serde_json::to_string(&list).unwrap()).unwrap();
    let items = items.to_str().unwrap();

    let out = warden(&store, &["fanout", "plan", "--items", items, "--phase", "tests", "--json"]);
    assert_eq!(out.status.code(), Some(0));
    let p = json(&out);
    assert_eq!(p["plan"]["mode"], "fan_out");
    assert_eq!(p["plan"]["chunks"].as_array().unwrap().len(), 3, "ceil(600 / 250) = 3");
    assert_eq!(p["warnings"].as_array().unwrap().len(), 2, "{p}");
    let single = json(&warden(&store, &["fanout", "plan", "--items", items, "--no-fan-out", "--json"]));
    assert_eq!(single["plan"]["mode"], "single_agent");

    let out = warden(
        &store,
        &[
            "fanout", "run", "--items", items, "--phase", "tests", "--run", "R1", "--json", "--", "sh", "-c",
            AGENT,
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let r = json(&out);
    assert_eq!(r["merged"]["status"], "completed");
    assert_eq!(r["merged"]["test_results"]["passed"], 3);
    assert_eq!(r["state_key"], "tests@1", "the merged result is stored under the plan's event");
    let log = warden(&store, &["audit", "log", "--json"]);
    let types: Vec<String> = String::from_utf8(log.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["event_type"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        types,
        ["fan_out_planned", "chunk_finished", "chunk_finished", "chunk_finished", "fan_out_merged"]
    );

    let good = dir.path().join("r0.json");
    let bad = dir.path().join("r1.json");
    std::fs::write(&good, r#"{"chunk_index":0,"status":"completed","elapsed_ms":3,"test_results":{"passed":2,"failed":0,"skipped":0}}"#).unwrap();
    std::fs::write(&bad, "garbage").unwrap();
    let out = warden(&store, &["fanout", "merge", good.to_str().unwrap(), bad.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let m = json(&out);
    assert_eq!(m["merged"]["status"], "degraded");
    assert_eq!(m["merged"]["failures"][0]["status"], "invalid");
}

#[test]
fn the_bundled_example_splits_a_real_test_suite() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_warden"))
        .current_dir(&root)
        .arg("--store")
        .arg(dir.path().join("audit"))
        .args([
            "fanout",
            "run",
            "--config",
            "examples/fanout/agentwarden.toml",
            "--items",
            "examples/fanout/items.json",
        ])
        .args(["--phase", "tests", "--json", "--", "sh", "examples/fanout/agent.sh"])
        .output()
        .unwrap();
    let r = json(&out);
    assert_eq!(r["plan"]["chunks"].as_array().map(Vec::len), Some(3), "{r}");
    assert_eq!(r["merged"]["status"], "completed");
    assert_eq!(r["merged"]["test_results"]["passed"], 8);
    assert_eq!(r["merged"]["test_results"]["failed"], 1);
    assert_eq!(
        r["merged"]["test_results"]["failures"],
        serde_json::json!(["examples/fanout/tests/test_09.sh"])
    );
}

#[test]
fn sigterm_mid_run_kills_the_chunks_and_writes_no_merged_result() {
    // The chunk agents (in process groups of their own) are killed with the run, nothing
    // is merged, the interruption is recorded, and the log still verifies (F-16).
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("audit");
    let items = dir.path().join("items.json");
    std::fs::write(&items, r#"["a","b"]"#).unwrap();
    let pids = dir.path().join("pids");
    // Each agent also leaves a `setsid` grandchild, outside its process group (F-18).
    let agent = format!(
        "read input; setsid sleep 1000 </dev/null >/dev/null 2>&1 & echo $! >> {0}; echo $$ >> {0}; sleep 30",
        pids.display()
    );
    let run = Command::new(env!("CARGO_BIN_EXE_warden"))
        .arg("--store")
        .arg(&store)
        .args([
            "fanout",
            "run",
            "--items",
            items.to_str().unwrap(),
            "--phase",
            "tests",
            "--",
            "sh",
            "-c",
            &agent,
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while !pids.exists() && started.elapsed() < std::time::Duration::from_secs(10) {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    let status = Command::new("kill").args(["-TERM", &run.id().to_string()]).status().unwrap();
    assert!(status.success());
    let finished = std::time::Instant::now();
    let out = run.wait_with_output().unwrap();
    assert!(finished.elapsed() < std::time::Duration::from_secs(5), "it waited for the chunks");
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("interrupted by SIGTERM"));
    for pid in std::fs::read_to_string(&pids).unwrap().lines() {
        let mut dead = false;
        for _ in 0..50 {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"));
            if stat.map_or(true, |s| s.contains(") Z ")) {
                dead = true;
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        if !dead {
            let _ = Command::new("kill").args(["-9", pid]).status();
        }
        assert!(dead, "chunk agent or its child {pid} outlived the run: {stat}");
    }
    let log = warden(&store, &["audit", "export", "--format", "jsonl"]);
    let types: Vec<String> = String::from_utf8(log.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["event_type"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(types, ["fan_out_planned", "operator_note"], "nothing merged");
    assert_eq!(warden(&store, &["audit", "verify"]).status.code(), Some(0));
}

#[test]
fn a_chunk_agent_gets_neither_the_store_nor_wardens_variables() {
    // `warden` itself runs with `--store` and `AGENTWARDEN_ENABLE_SUBAGENTS`; its chunk agents
    // see neither, nor anything else but the base set and what `fan_out.pass_env` names (F-19).
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("audit");
    let items = dir.path().join("items.json");
    std::fs::write(&items, r#"["tests/a.sh"]"#).unwrap();
    let config = dir.path().join("agentwarden.toml");
    std::fs::write(
        &config,
        "[subagents]\nenable_env = \"MY_SWITCH\"\n[fan_out]\npass_env = [\"PASSED_ON\", \"AGENTWARDEN_STORE\", \"MY_SWITCH\"]\n[fan_out.defaults]\ntimeout_per_chunk_ms = 60000\n",
    )
    .unwrap();
    let env_file = dir.path().join("env");
    let agent = format!("env > {}; {AGENT}", env_file.display());
    let out = Command::new(env!("CARGO_BIN_EXE_warden"))
        .arg("--store")
        .arg(&store)
        .env("AGENTWARDEN_ENABLE_SUBAGENTS", "true")
        .env("PASSED_ON", "yes")
        .env("NOT_PASSED", "secret")
        .env("MY_SWITCH", "true")
        .args(["fanout", "run", "--items", items.to_str().unwrap(), "--phase", "tests", "--json"])
        .arg("--config")
        .arg(&config)
        .args(["--", "sh", "-c", &agent])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(store.exists(), "the run used the store --store named");
    let env = std::fs::read_to_string(&env_file).unwrap();
    assert!(env.lines().any(|l| l == "PASSED_ON=yes"), "{env}");
    assert!(env.lines().any(|l| l.starts_with("PATH=")), "{env}");
    // The kill switch is Warden's, whatever its configured name.
    for banned in ["AGENTWARDEN_", "NOT_PASSED", "MY_SWITCH"] {
        assert!(!env.lines().any(|l| l.starts_with(banned)), "the agent was given {banned}…: {env}");
    }
    assert_eq!(json(&out)["merged"]["status"], "completed");
}
