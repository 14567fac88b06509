#![deny(warnings)]

use std::error::Error;

#[rt::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), Box<dyn Error>> {
    // `?` converts into the declared error type.
    let value = rt::spawn(async { 7 }).await?;
    let parsed: u32 = "7".parse()?;
    assert_eq!(value, parsed);
    if value != 7 {
        return Err("unexpected value".into());
    }
    Ok(())
}
