//! The agent of a guarded run as a process: `PROGRAM ARGS…` in the workspace, its stdout where
//! the caller says (the terminal, or stderr when the caller's own stdout carries JSON).

use std::path::Path;
use std::process::Stdio;

use agentwarden_ports::AgentRunner;
use async_trait::async_trait;

/// Runs `program` with `args` in the workspace, inheriting stdin and stderr.
#[derive(Clone, Debug)]
pub struct ProcessAgentRunner {
    program: String,
    args: Vec<String>,
    stdout_to_stderr: bool,
}

impl ProcessAgentRunner {
    /// The agent `program args…`.
    pub fn new(program: impl Into<String>, args: Vec<String>) -> Self {
        ProcessAgentRunner { program: program.into(), args, stdout_to_stderr: false }
    }

    /// Sends the agent's stdout to stderr (the caller's stdout is one JSON object).
    pub fn stdout_to_stderr(mut self, yes: bool) -> Self {
        self.stdout_to_stderr = yes;
        self
    }
}

use agentwarden_domain::fact::FactError;

#[async_trait]
impl AgentRunner for ProcessAgentRunner {
    async fn run_agent(&self, root: &Path) -> Result<Option<i32>, FactError> {
        let mut command = tokio::process::Command::new(&self.program);
        command.args(&self.args).current_dir(root);
        if self.stdout_to_stderr {
            use std::os::fd::AsFd;
            let stderr = std::io::stderr()
                .as_fd()
                .try_clone_to_owned()
                .map_err(|e| FactError::new(format!("cannot hand over stderr: {e}")))?;
            command.stdout(Stdio::from(stderr));
        }
        let status = command
            .status()
            .await
            .map_err(|e| FactError::new(format!("cannot run `{}`: {e}", self.program)))?;
        Ok(status.code())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_agent_runs_in_the_workspace_and_its_end_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        let sh = |script: &str| ProcessAgentRunner::new("sh", vec!["-c".into(), script.into()]);
        assert_eq!(sh("pwd > here; exit 3").run_agent(dir.path()).await, Ok(Some(3)));
        let here = std::fs::read_to_string(dir.path().join("here")).unwrap();
        assert_eq!(std::path::Path::new(here.trim()), dir.path().canonicalize().unwrap());
        assert_eq!(sh("kill -9 $$").run_agent(dir.path()).await, Ok(None), "a signal ended it");
        let missing = ProcessAgentRunner::new("/nonexistent/agent", Vec::new()).run_agent(dir.path()).await;
        assert!(missing.unwrap_err().reason().contains("cannot run `/nonexistent/agent`"));
    }
}
