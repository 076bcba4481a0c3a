//! `taskcheck watch`: a real client and server talking through taskcheck, every byte relayed
//! unchanged and every message recorded, then judged: over stdio (a client's server command)
//! and over Streamable HTTP (a reverse proxy).

pub mod http;
pub mod stdio;
