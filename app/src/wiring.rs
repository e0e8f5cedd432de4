//! What a [`crate::WardenBuilder`] is wired with besides its stores, each port with the adapters
//! the workspace gives it (issue 49, item 5; A-49): the clock (the system's, a fixed or a
//! stepping one for tests), the environment (the process's, or a fixed one), the file system
//! (the local one, read by descriptor), the restorer (git), and the runners the fan-out and the
//! guarded run take (processes). A library consumer builds its own adapter by implementing the
//! port here; the stores are in [`crate::store`].

pub use agentwarden_adapters::{
    FixedClock, FixedEnvironment, GitRestorer, LocalFileSystem, ProcessAgentRunner, ProcessChunkRunner,
    ProcessEnvironment, SteppingClock, SystemClock,
};
pub use agentwarden_ports::{AgentRunner, ChunkRunner, Clock, Environment, FileSystem, FilesError, Restorer};
