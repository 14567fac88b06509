#[rt::main]
async fn main() {
    let _: () = rt::select! {};
}
