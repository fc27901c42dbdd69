//! The providers' integration tests, one binary (STYLE.md): against a real
//! llama-server (`llama_server`) and against a fault server on loopback that answers
//! what each test scripts (`faults`, with the server in `fault_server`).

mod fault_server;
mod faults;
mod llama_server;
