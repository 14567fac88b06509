// A mismatched return value points at the body and the declared type.
#[rt::main]
async fn main() -> Result<(), std::io::Error> {
    Ok(5)
}
