module goodput/bench/reference_sender

go 1.19
