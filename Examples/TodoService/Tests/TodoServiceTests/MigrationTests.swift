import Testing
import TodoService

@Suite struct MigrationTests {
    /// Two servers started together on a new file each migrate it: whichever
    /// takes the write lock second must find the schema made, not make it
    /// again. The race is lost only some of the time, hence the rounds.
    /// (Two, not more: in one process they share SQLiteNIO's threads, and a
    /// writer waiting for the lock holds one of them.)
    @Test(.timeLimit(.minutes(2)))
    func twoOpeningsOfANewFileAtOnceBothMigrateIt() async throws {
        for _ in 0..<20 {
            let file = TestDatabase()
            defer { file.remove() }
            let configuration = Database.Configuration(path: file.path, connections: 2)
            let opened = await withTaskGroup(of: Result<Database, any Error>.self) { group in
                for _ in 0..<2 {
                    group.addTask {
                        do {
                            return .success(try await Database.open(configuration, logger: testLogger))
                        } catch {
                            return .failure(error)
                        }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            for case .success(let database) in opened {
                await database.close()
            }
            for result in opened {
                _ = try result.get()
            }
            // The schema is whole: a todo can be written and its change logged.
            let reopened = try await Database.open(configuration, logger: testLogger)
            let transaction = try await Transaction.begin(in: reopened, readOnly: false)
            let todo = try await TodoRepository(transaction: transaction).insert(NewTodo(title: "after the race"))
            let request = RequestInfo(id: "test", method: .post)
            try await SQLiteChangeLog(transaction: transaction, request: request).record("created", todo: todo.id)
            try await transaction.commit()
            await transaction.end()
            await reopened.close()
        }
    }
}
